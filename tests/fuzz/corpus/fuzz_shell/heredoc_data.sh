cat > /etc/x <<EOF
rm -rf /
$(touch pwned)
EOF
echo after
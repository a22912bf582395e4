x=$(cat <<EOF
hello
EOF
)
(cat <<EOF) | bash
rm -rf /
EOF

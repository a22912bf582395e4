python3 - <<'EOF'
import os
os.system("rm -rf ~")
EOF
cat <<A | perl | node
system('id')
A
echo cHJpbnQoMyk= | base64 -d | python3 <<B <<-C
x
B
	y
	C
python3 <<< 'subprocess.run("ls")'

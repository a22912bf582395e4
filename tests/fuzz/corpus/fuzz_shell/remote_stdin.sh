ssh -p 22 prod 'bash -s' <<'EOF'
rm -rf /
EOF
kubectl exec -i web-0 -- sudo sh -s -- x <<A
ls
A
ssh h <<< 'id'
sftp -b - u@h <<'B'
put ~/.ssh/id_rsa
B

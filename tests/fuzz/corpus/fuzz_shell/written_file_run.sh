echo 'rm -rf ~' > /tmp/x && bash /tmp/x; printf 'rm -rf %s\n' / > run && . ./run
cat > job <<'EOF2' && chmod +x job && ./job
rm -rf "$HOME"
EOF2
echo ls | tee -a /tmp/x >/dev/null; sh < /tmp/x; cat /tmp/x | sh; python3 /tmp/x -v
printf '\x72\x6d -rf %b\n' '\0176' | sh; echo -e 'ls\nrm -rf ~\c' | bash
{ echo 'rm -rf ~'; (echo ls) ; } > /tmp/g; for i in 1; do printf 'x\n'; done >> /tmp/g; if true; then echo y; fi > /tmp/g; bash /tmp/g
echo ls > /tmp/x; eval "$(cat /tmp/x)"; sh -c "$(< ./x)"

{ echo 'set -e'; cat <<'X'
rm -rf ~
X
} > /tmp/c; bash /tmp/c
{ echo 'rm -rf ~'; } | tee /tmp/d | sh; ( echo ls; X=1 ) | python3 -W ignore; node -r x -C c /tmp/c; awk -v a=1 -f /tmp/d; ruby -e 'system("rm", "-rf", Dir.home)'

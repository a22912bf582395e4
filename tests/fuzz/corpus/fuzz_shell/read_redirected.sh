read -r d <<< "/"; rm -rf "$d"
mapfile -t a < <(echo -n / ~); rm -rf "${a[@]}"
readarray -d , -t b <<< "$HOME"

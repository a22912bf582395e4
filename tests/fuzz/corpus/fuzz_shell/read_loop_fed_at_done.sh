while read -r d; do rm -rf "$d"; done <<< "/"
while read a; do for b in x; do echo "$b"; done; done < <(echo -n ~)

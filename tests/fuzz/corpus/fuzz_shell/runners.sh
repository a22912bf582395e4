uv run --with x rm -rf /
poetry -C app run -- python3 - <<A
import os
A
aws-vault exec p -- npx -y rimraf ~

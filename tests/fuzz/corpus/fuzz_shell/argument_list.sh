python3 -c "import subprocess as s; s.run(['rm', '-rf', os.path.join(d, 'x'), \"it's\"]); s.Popen(
  ['curl', '-s', f'{u}', '-o', '/tmp/o'])" && node -e "require('child_process').execFileSync('rm', ['-rf', '/', [1, (2)], {a: ']'}])"

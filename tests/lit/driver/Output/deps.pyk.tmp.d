/work/main/tests/lit/driver/Output/deps.pyk.tmp.ptx /work/main/tests/lit/driver/Output/deps.pyk.tmp.yaml: /work/main/tests/lit/driver/deps.pyk \
  /work/main/tests/lit/driver/Inputs/lib/helpers.pyk

/work/main/tests/lit/driver/Inputs/lib/helpers.pyk:

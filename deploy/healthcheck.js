// The image's health check: asks /health/ready of whichever Custos service listens in this container (each runs
// one), on the port its variable names or the default. Exit 0 when it answers 200, 1 otherwise.
'use strict';

const ports = [
  process.env.PDP_PORT || '8080',
  process.env.PAP_PORT || '8081',
  process.env.AUTH_PORT || '8082',
];

async function check() {
  for (const port of ports) {
    let response;
    try {
      response = await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(8000) });
    } catch (error) {
      // Nothing listens on this port: the container runs another service.
      if (error && error.cause && error.cause.code === 'ECONNREFUSED') continue;
      process.stderr.write(`port ${port}: ${error && error.name === 'TimeoutError' ? 'no answer in 8 s' : String(error)}\n`);
      return 1;
    }
    if (response.status === 200) return 0;
    process.stderr.write(`port ${port}: /health/ready answered ${response.status}\n`);
    return 1;
  }
  process.stderr.write(`no Custos service answers on ports ${ports.join(', ')}\n`);
  return 1;
}

check().then((code) => process.exit(code));

import { failStartup } from '@custos/service-kit';
import { startEmbedded } from './compose';

/** `npm run start:embedded`: Custos in this process on embedded parts, until SIGINT or SIGTERM. */
async function main(): Promise<void> {
  const started = Date.now();
  const custos = await startEmbedded(process.env);
  const { auth, pap, pdp } = custos.urls;
  process.stdout.write(
    `custos embedded ready in ${((Date.now() - started) / 1000).toFixed(1)} s: auth ${auth}, pap ${pap}, pdp ${pdp}; data in ${custos.dataDir}\n`,
  );
  const onSignal = () => {
    void custos.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
}

main().catch((error: unknown) => failStartup('custos embedded', error, process.env));

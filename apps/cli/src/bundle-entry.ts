/** Entry of the production bundle (scripts/bundle.mjs): the same `main` as bin/cordon.js, without tsx. */
import { main } from './main.ts';

await main(process.argv);

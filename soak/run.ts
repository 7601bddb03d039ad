/**
 * `npm run soak`: `node --import tsx soak/run.ts [--duration SECONDS] [--connections N]`.
 * Starts two reference-server processes on the shared Redis (127.0.0.1:6379, or REDIS_URL), loads
 * them with autocannon, checks zero 5xx, exact rate limits and no lost idempotency result, prints
 * the figures and exits 0 (pass) or 1 (fail).
 */
import { parseArgs } from 'node:util';
import { formatSoak, runSoak } from './soak.ts';

const { values } = parseArgs({ options: { duration: { type: 'string', default: '30' }, connections: { type: 'string', default: '8' } } });
const durationSeconds = Number(values.duration);
const connections = Number(values.connections);
if (
  !Number.isInteger(durationSeconds) ||
  durationSeconds < 1 ||
  durationSeconds > 600 ||
  !Number.isInteger(connections) ||
  connections < 1 ||
  connections > 100
) {
  console.error('usage: soak/run.ts [--duration 1..600] [--connections 1..100]');
  process.exit(2);
}
console.log(`soak: ${durationSeconds} s, ${connections} connections per instance for payments…`);
const report = await runSoak({ durationSeconds, connections });
console.log(formatSoak(report));
process.exitCode = report.problems.length === 0 ? 0 : 1;

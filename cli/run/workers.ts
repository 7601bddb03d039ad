/**
 * How many Playwright workers a run uses when neither `--workers` nor HAC_WORKERS says. A target on
 * this machine (every base URL on a loopback host, or the embedded server) gets 3: the run is bound by
 * the two cores the suite and the server share. A target elsewhere gets 6: behind network latency a
 * check mostly waits for its answers, so more checks at once shorten the run (bench/README.md: a full
 * run behind a 50 ms latency proxy took 27.5 s with 3 workers, 19 s with 6 and 18 s with 8, on 2 cores).
 */
import { BlockList, isIP } from 'node:net';

export const LOCAL_WORKERS = 3;
export const REMOTE_WORKERS = 6;

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/** True for `localhost` (and `*.localhost`), 127.0.0.0/8, ::1 and IPv4-mapped 127.0.0.0/8: a URL's hostname, brackets and all. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const family = isIP(host);
  return family !== 0 && LOOPBACK.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

/** True when every one of these base URLs is on this machine (the embedded server: none given, so local). */
export function isLocalTarget(baseUrls: readonly string[]): boolean {
  return baseUrls.every((url) => {
    try {
      return isLoopbackHost(new URL(url).hostname);
    } catch {
      return true;
    }
  });
}

/** The default worker count for these base URLs (the embedded server: none given, so local). */
export function defaultWorkers(baseUrls: readonly string[]): number {
  return isLocalTarget(baseUrls) ? LOCAL_WORKERS : REMOTE_WORKERS;
}

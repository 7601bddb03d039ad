/**
 * The default worker count of a run (cli/run/workers.ts): 3 for a target on this machine,
 * 6 for a target elsewhere, decided from the base URLs' hosts before the suite starts.
 */
import { expect, test } from '@playwright/test';
import { defaultWorkers, isLoopbackHost, LOCAL_WORKERS, REMOTE_WORKERS } from '../run/workers.ts';

test('loopback hosts are told from every other host, in the form a URL gives them', () => {
  const hostname = (url: string): string => new URL(url).hostname;
  for (const url of ['http://localhost:3000', 'http://LOCALHOST', 'http://api.localhost', 'http://127.0.0.1:1', 'http://127.8.9.10', 'http://[::1]:80', 'http://[0:0:0:0:0:0:0:1]', 'http://[::ffff:127.0.0.1]']) {
    expect(isLoopbackHost(hostname(url)), url).toBe(true);
  }
  for (const url of ['https://staging.example.com', 'http://10.0.0.1', 'http://0.0.0.0', 'http://128.0.0.1', 'http://[2001:db8::1]', 'http://[::ffff:10.0.0.1]', 'http://localhost.example.com']) {
    expect(isLoopbackHost(hostname(url)), url).toBe(false);
  }
});

test('a run takes more workers only when a target is not on this machine', () => {
  expect(defaultWorkers([])).toBe(LOCAL_WORKERS);
  expect(defaultWorkers(['http://127.0.0.1:3000', 'http://localhost:3001'])).toBe(LOCAL_WORKERS);
  expect(defaultWorkers(['https://staging.example.com'])).toBe(REMOTE_WORKERS);
  expect(defaultWorkers(['http://127.0.0.1:3000', 'https://api.example.com'])).toBe(REMOTE_WORKERS);
  expect(defaultWorkers(['not a url'])).toBe(LOCAL_WORKERS);
  expect(REMOTE_WORKERS).toBeGreaterThan(LOCAL_WORKERS);
});

/**
 * Phase 5: a V8 CPU profile (`--cpu-prof`) of the reference server child under
 * load on one route, reduced to the top self-time frames and the share per code area, counting
 * only the samples taken while the measured load ran (after a warm-up; not start-up).
 */
import { sourcePathOf } from '../compile.ts';
import { mkdtempSync, readdirSync, readFileSync, rmSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchConfig, storeConfig } from '../bench-config.ts';
import { runLoad } from '../load.ts';
import { startBenchServer } from '../servers.ts';
import type { ProfileFrame, ProfileResult, StoreKind } from '../types.ts';
import { ROUTES } from './throughput.ts';

interface CpuProfileNode {
  id: number;
  children?: number[];
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}

interface CpuProfile {
  nodes: CpuProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileOptions {
  route: string;
  store: StoreKind;
  redisUrl: string;
  keyPrefix: string;
  durationSeconds: number;
  connections: number;
  /** Where the .cpuprofile is kept (open it in Chrome DevTools); the runner's results folder. */
  keepAs: string;
  log: (line: string) => void;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The code area of a frame: the project folder, the npm package, node internals or a V8 pseudo-frame. */
export function areaOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const path = sourcePathOf(url.startsWith('file://') ? fileURLToPath(url) : url);
  const inModules = path.lastIndexOf('node_modules/');
  if (inModules >= 0) {
    const rest = path.slice(inModules + 'node_modules/'.length).split('/');
    return `npm:${rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? '?')}`;
  }
  const local = relative(ROOT, path);
  return local.startsWith('..') ? path : (local.split('/')[0] ?? local);
}

/**
 * Self time per frame over the samples taken between `fromUs` and `toUs` (the profile's clock);
 * idle time is left out of the shares.
 */
export function summarizeProfile(
  profile: CpuProfile,
  fromUs: number,
  toUs: number,
  top = 15,
): { totalMs: number; topFrames: ProfileFrame[]; byArea: Record<string, number>; projectInclusive: ProfileFrame[] } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const inclusiveUs = new Map<string, { frame: CpuProfileNode['callFrame']; us: number }>();
  const times: number[] = [];
  let t = profile.startTime;
  for (const delta of profile.timeDeltas) {
    t += delta;
    times.push(t);
  }
  const selfUs = new Map<string, { frame: CpuProfileNode['callFrame']; us: number }>();
  const areaUs = new Map<string, number>();
  let busyUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const at = times[i] ?? 0;
    if (at < fromUs || at > toUs) continue;
    const next = times[i + 1] ?? profile.endTime;
    const us = Math.max(0, next - at);
    const node = byId.get(profile.samples[i] ?? -1);
    if (!node || node.callFrame.functionName === '(idle)') continue;
    busyUs += us;
    const { functionName, url, lineNumber } = node.callFrame;
    const key = `${functionName}|${url}|${lineNumber}`;
    const entry = selfUs.get(key) ?? { frame: node.callFrame, us: 0 };
    entry.us += us;
    selfUs.set(key, entry);
    const area = areaOf(url, functionName);
    areaUs.set(area, (areaUs.get(area) ?? 0) + us);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parentOf.get(id)) {
      const frame = byId.get(id)?.callFrame;
      if (!frame || !frame.url.includes('/reference-impl/')) continue;
      const frameKey = `${frame.functionName}|${frame.url}|${frame.lineNumber}`;
      if (seen.has(frameKey)) continue;
      seen.add(frameKey);
      const entry = inclusiveUs.get(frameKey) ?? { frame, us: 0 };
      entry.us += us;
      inclusiveUs.set(frameKey, entry);
    }
  }
  const share = (us: number): number => (busyUs > 0 ? Math.round((us / busyUs) * 1000) / 1000 : 0);
  const toFrames = (entries: Iterable<{ frame: CpuProfileNode['callFrame']; us: number }>): ProfileFrame[] =>
    [...entries]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map(({ frame, us }) => ({
        functionName: frame.functionName || '(anonymous)',
        location: frame.url ? `${areaOf(frame.url, frame.functionName)}:${relativeUrl(frame.url)}:${frame.lineNumber + 1}` : '',
        selfMs: Math.round(us / 100) / 10,
        selfShare: share(us),
      }));
  const topFrames = toFrames(selfUs.values());
  const projectInclusive = toFrames(inclusiveUs.values());
  const byArea = Object.fromEntries([...areaUs.entries()].sort((a, b) => b[1] - a[1]).map(([area, us]) => [area, share(us)]));
  return { totalMs: Math.round(busyUs / 1000), topFrames, byArea, projectInclusive };
}

function relativeUrl(url: string): string {
  const path = sourcePathOf(url.startsWith('file://') ? fileURLToPath(url) : url);
  const inModules = path.lastIndexOf('node_modules/');
  if (inModules >= 0) return path.slice(inModules + 'node_modules/'.length);
  return relative(ROOT, path);
}

/** Profiles the reference server on `options.route` under load. */
export async function profilePhase(options: ProfileOptions): Promise<ProfileResult> {
  const route = ROUTES.find((r) => r.name === options.route);
  if (!route) throw new Error(`unknown route to profile: ${options.route}`);
  const dir = mkdtempSync(join(tmpdir(), 'hac-bench-prof-'));
  try {
    const target = await startBenchServer(
      { kind: 'reference', config: benchConfig(storeConfig(options.store, options.redisUrl, `${options.keyPrefix}prof:`)) },
      { cpuProfDir: dir },
    );
    let from = { at: 0, cpuMicros: 0 };
    let to = { at: 0, cpuMicros: 0 };
    let requests = 0;
    try {
      await runLoad({ url: target.url, request: route.request, durationSeconds: 1, connections: options.connections });
      from = await target.mark();
      requests = (
        await runLoad({ url: target.url, request: route.request, durationSeconds: options.durationSeconds, connections: options.connections })
      ).total;
      to = await target.mark();
    } finally {
      await target.close();
    }
    const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
    if (!file) throw new Error('the server child wrote no CPU profile');
    copyFileSync(join(dir, file), options.keepAs);
    const summary = summarizeProfile(JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile, from.at, to.at);
    const cpuMicrosPerRequest = requests > 0 ? Math.round((to.cpuMicros - from.cpuMicros) / requests) : 0;
    options.log(
      `  ${options.store} ${options.route}: ${summary.totalMs} ms busy for ${requests} requests (${cpuMicrosPerRequest} µs CPU each); ` +
        `by area ${JSON.stringify(summary.byArea)}`,
    );
    for (const frame of summary.topFrames.slice(0, 10)) {
      options.log(`    ${(frame.selfShare * 100).toFixed(1).padStart(5)} %  ${frame.functionName}  ${frame.location}`);
    }
    return { route: options.route, store: options.store, requests, cpuMicrosPerRequest, ...summary, file: relative(ROOT, options.keepAs) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

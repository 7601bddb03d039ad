/**
 * report.html: one self-contained page per run for the people who approve a release. The verdict,
 * the counts per level and per area, then every requirement with its level, outcome, the document's
 * quote and section, the decisions that refine it, the skip reason or, for a failure, the failing
 * request as a curl line with the response received; filters by outcome and area. Everything is
 * inline and the Content-Security-Policy forbids any fetch, so it opens from disk.
 */
import { createHash } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Exchange } from '../transport/exchange.ts';
import { REPORT_CSS, REPORT_JS } from './html-assets.ts';
import { OUTCOMES } from './report-view.ts';
import type { Counts, ReportView, RequirementView } from './report-view.ts';
import type { TestRecord } from '../../spec/results.ts';

/** Escapes text for HTML content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

const e = escapeHtml;

/** Headers that say nothing about the failure. */
const NOISE_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function countCells(counts: Counts): string {
  return [...OUTCOMES, 'total' as const].map((o) => `<td class="n-${o}${counts[o] === 0 ? ' zero' : ''}">${counts[o]}</td>`).join('');
}

function countsHeader(first: string): string {
  return `<thead><tr><th>${first}</th>${OUTCOMES.map((o) => `<th>${o}</th>`).join('')}<th>total</th></tr></thead>`;
}

function evidence(exchange: Exchange): string {
  const parts = [`<div class="evidence"><h5>Request</h5><pre class="curl">${e(exchange.curl)}</pre>`];
  if (exchange.response) {
    const headers = Object.entries(exchange.response.headers)
      .filter(([name]) => !NOISE_HEADERS.has(name))
      .map(([name, value]) => `${name}: ${value}`)
      .join('\n');
    const size =
      exchange.response.bodyBytes > exchange.response.body.length ? ` (first ${exchange.response.body.length} of ${exchange.response.bodyBytes} bytes)` : '';
    parts.push(
      `<h5>Response received${e(size)}</h5><pre class="response">HTTP ${exchange.response.status} ${e(STATUS_CODES[exchange.response.status] ?? '')}\n` +
        `${e(headers)}${exchange.response.body ? `\n\n${e(exchange.response.body)}` : ''}</pre>`,
    );
  } else {
    parts.push(`<h5>No response</h5><pre class="response">${e(exchange.error ?? 'the target did not answer')}</pre>`);
  }
  parts.push('</div>');
  return parts.join('');
}

function testItem(test: TestRecord): string {
  const where = test.location ? ` <span class="loc">${e(test.location)}</span>` : '';
  const lines = [
    `<li><span class="test-status ${e(test.status)}">${e(test.status)}</span> ${e(test.title)}${where} <span class="loc">${test.durationMs} ms</span>`,
  ];
  if (test.reason) lines.push(`<div class="reason">${e(test.reason)}</div>`);
  if (test.notes) lines.push(`<ul class="notes">${test.notes.map((note) => `<li>${e(note)}</li>`).join('')}</ul>`);
  if (test.headline) lines.push(`<p class="headline">${e(test.headline)}</p>`);
  if (test.error) {
    const pre = `<pre class="error">${e(test.error)}</pre>`;
    lines.push(test.headline ? `<details class="details"><summary>assertion details</summary>${pre}</details>` : pre);
  }
  if (test.exchange) lines.push(evidence(test.exchange));
  lines.push('</li>');
  return lines.join('');
}

function requirementArticle(r: RequirementView): string {
  const open = r.outcome === 'failed' || r.outcome === 'warning' ? ' open' : '';
  const body: string[] = [];
  if (r.consequenceOf) {
    const cause = `<a href="#req-${e(r.consequenceOf)}"><code>${e(r.consequenceOf)}</code></a>`;
    body.push(`<p class="reason consequence">Consequence of ${cause}: fix that finding first.</p>`);
  }
  if (r.expected) {
    const link = r.expected.link ? ` <a href="${e(r.expected.link)}">${e(r.expected.link)}</a>` : '';
    body.push(`<p class="reason expected"><strong>Expected failure:</strong> ${e(r.expected.reason)}${link}</p>`);
  }
  if (r.reason && r.outcome !== 'skipped') body.push(`<p class="reason ${r.outcome}"><strong>Why:</strong> ${e(r.reason)}</p>`);
  if (r.source) {
    const cite = r.source.section ? `the document, section ${r.source.section}` : `spec/decisions.md, ${r.source.decision ?? ''}`;
    body.push(`<blockquote>“${e(r.source.quote)}”<cite>${e(cite)}</cite></blockquote>`);
  }
  for (const also of r.alsoIn) body.push(`<blockquote>“${e(also.quote)}”<cite>${e(`also in section ${also.section}`)}</cite></blockquote>`);
  for (const d of r.decisions) {
    const relation = d.relation === 'creates' ? 'creates this requirement' : 'refines this requirement';
    const heading = `<strong>${e(d.name)}</strong> ${e(d.title)} <span class="loc">(spec/decisions.md; ${relation})</span>`;
    const short = d.decision.length <= 400 && !d.decision.includes('\n\n') && !d.decision.includes('|');
    const text = short
      ? `<div class="text">${e(d.decision.replace(/\s+/g, ' '))}</div>`
      : `<details><summary>the decision</summary><div class="text md">${e(d.decision)}</div></details>`;
    body.push(`<div class="decision">${heading}${d.decision ? text : ''}</div>`);
  }
  if (r.tests.length > 0) body.push(`<ol class="tests">${r.tests.map(testItem).join('')}</ol>`);
  return [
    `<article class="req" id="req-${e(r.id)}" data-outcome="${r.outcome}" data-area="${e(r.area)}" data-level="${r.level}">`,
    `<details${open}><summary class="req-head"><span class="pill ${r.outcome}">${r.outcome}</span> <code>${e(r.id)}</code> ` +
      `<span class="level ${r.level}">${r.level}</span> <span class="area">${e(r.area)}</span> <span class="summary-text">${e(r.summary)}</span>` +
      `${r.expected ? '<span class="tag expected">expected</span>' : ''}` +
      `${r.consequenceOf ? `<span class="tag consequence">consequence of ${e(r.consequenceOf)}</span>` : ''}` +
      `${r.outcome === 'skipped' && r.reason ? `<span class="why">${e(r.reason)}</span>` : ''}</summary>`,
    `<div class="req-body">${body.join('')}</div></details></article>`,
  ].join('');
}

function lead(view: ReportView): string {
  const s = view.results.summary;
  if (view.verdict === 'error') return 'The run could not start; no requirement was checked.';
  const should = view.byLevel.find((l) => l.level === 'SHOULD')?.counts;
  const parts = [`${view.must.passed} of ${view.must.checked} MUST requirements checked passed`];
  if (should) parts.push(`${should.passed} SHOULD passed, ${should.warning + should.failed} with a warning or failure`);
  parts.push(`${s.skipped} requirements skipped`);
  return parts.join(' · ');
}

function meta(view: ReportView): string {
  const r = view.results;
  const target = r.target as { name?: unknown; baseUrls?: unknown; profile?: unknown; command?: unknown };
  const rows: [string, string][] = [];
  if (Array.isArray(target.baseUrls)) rows.push(['target', target.baseUrls.join(', ')]);
  if (typeof target.command === 'string') rows.push(['command', target.command]);
  if (typeof target.profile === 'string') rows.push(['profile', target.profile]);
  rows.push(['suite', `${r.tool} ${r.version}`], ['started', r.startedAt], ['duration', seconds(r.durationMs)]);
  rows.push(['options', [r.strict ? '--strict' : 'SHOULD failures are warnings (no --strict)', r.grep ? `--grep ${r.grep}` : ''].filter(Boolean).join(', ')]);
  return `<dl class="meta">${rows.map(([k, v]) => `<dt>${e(k)}</dt><dd>${e(v)}</dd>`).join('')}</dl>`;
}

/** The findings (D-FINDINGS): one per defect, the requirement that reports it and every requirement it breaks. */
function findingsSection(view: ReportView): string {
  const findings = view.results.findings ?? [];
  if (findings.length === 0) return '';
  const link = (id: string): string => `<a href="#req-${e(id)}"><code>${e(id)}</code></a>`;
  const items = findings
    .map((f) => {
      const consequences = f.breaks.slice(1);
      const also = consequences.length > 0 ? `, and as a consequence ${consequences.map(link).join(', ')}` : '';
      const breaks = `<p class="breaks">breaks ${link(f.cause)}${also}</p>`;
      const expected = f.expected ? ' <span class="tag expected">expected</span>' : '';
      const tags = `<span class="pill ${f.outcome}">${f.outcome}</span> <span class="level ${f.level}">${f.level}</span>${expected}`;
      return `<li class="finding" data-cause="${e(f.cause)}">${tags} <span class="headline">${e(f.headline)}</span>${breaks}</li>`;
    })
    .join('');
  const requirements = findings.reduce((n, f) => n + f.breaks.length, 0);
  const heading = `Findings: ${findings.length} defect(s) behind ${requirements} requirement(s)`;
  return `<section class="findings" id="findings"><h2>${heading}</h2><ol>${items}</ol></section>`;
}

/** `run --expected-failures FILE`: the baseline and how the run met it. */
function expectedSection(view: ReportView): string {
  const x = view.results.expectedFailures;
  if (!x) return '';
  const list = (ids: readonly string[]): string => ids.map((id) => `<code>${e(id)}</code>`).join(', ') || 'none';
  const how = x.allowFixed ? 'a warning: --allow-fixed' : 'fails the run';
  const fixed = x.passingNow.length > 0
    ? `<p class="passing-now">Passes now (${how}): ${list(x.passingNow)}: remove ${x.passingNow.length > 1 ? 'them' : 'it'} from ${e(x.file)}.</p>`
    : '';
  const still = `<p>From ${e(x.file)}: still failing ${list(x.stillFailing)}.</p>`;
  return `<section class="expected-failures" id="expected-failures"><h2>Expected failures</h2>${still}${fixed}</section>`;
}

/** `run --repeat N`: the runs' exit codes and the requirements whose outcome differed between runs. */
function repeated(view: ReportView): string {
  const repeat = view.results.repeat;
  if (!repeat) return '';
  const items = repeat.disagreeing
    .map((id) => `<li><a href="#req-${e(id)}"><code>${e(id)}</code></a>: ${e((repeat.outcomes[id] ?? []).join(', '))}</li>`)
    .join('');
  const verdict =
    repeat.disagreeing.length > 0
      ? `<p>The outcome of ${repeat.disagreeing.length} requirement(s) differed between runs:</p><ul>${items}</ul>`
      : '<p>Every requirement had the same outcome in every run.</p>';
  return `<section class="errors repeat" id="repeat"><h2>${repeat.runs} runs</h2><p>Exit codes: ${e(repeat.exitCodes.join(', '))}.</p>${verdict}</section>`;
}

/** The whole page for `view`; `badge` is the SVG of badge.svg, shown inline. */
export function renderHtmlReport(view: ReportView, badge = ''): string {
  const r = view.results;
  const name = typeof r.target.name === 'string' ? r.target.name : r.kind === 'client' ? 'client' : 'target';
  const csp = `default-src 'none'; style-src ${sha256(REPORT_CSS)}; script-src ${sha256(REPORT_JS)}; img-src data:`;
  const errors = [
    ...(r.errors ?? []),
    ...(r.unknownIds?.length ? [`requirement IDs declared by tests but missing from the catalogue: ${r.unknownIds.join(', ')}`] : []),
  ];
  const warnings = r.warnings ?? [];
  const counts = (o: string): number => (o === 'all' ? view.requirements.length : view.requirements.filter((q) => q.outcome === o).length);
  const perLevel = view.byLevel.map((l) => `<tr><th>${l.level}</th>${countCells(l.counts)}</tr>`).join('');
  const areaLink = (area: string): string => `<button class="area-link" type="button" data-filter-area="${e(area)}">${e(area)}</button>`;
  const perArea = view.byArea.map((a) => `<tr><th>${areaLink(a.area)}</th>${countCells(a.counts)}</tr>`).join('');
  const outcomeButton = (o: string): string =>
    `<button type="button" class="outcome" data-filter-outcome="${o}" aria-pressed="${o === 'all'}">${o} (${counts(o)})</button>`;
  const areaOptions = view.byArea.map((a) => `<option value="${e(a.area)}">${e(a.area)}</option>`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<title>${e(`Conformance ${view.verdictLabel}: ${name}`)}</title>
<style>${REPORT_CSS}</style>
</head>
<body>
<header class="verdict verdict-${view.verdict}">
<div class="badge">${badge}</div>
<h1 id="verdict">${e(view.verdictLabel)} <span class="target">${e(name)}</span></h1>
<p class="lead">${e(lead(view))}</p>
${meta(view)}
</header>
<main>
${errors.length > 0 ? `<section class="errors"><h2>Run problems</h2><ul>${errors.map((x) => `<li>${e(x)}</li>`).join('')}</ul></section>` : ''}
${warnings.length > 0 ? `<section class="errors warnings"><h2>Warnings</h2><ul>${warnings.map((x) => `<li>${e(x)}</li>`).join('')}</ul></section>` : ''}
${repeated(view)}
${findingsSection(view)}
${expectedSection(view)}
<section class="counts">
<div><h2>Per level</h2><table id="per-level">${countsHeader('level')}<tbody>${perLevel}</tbody></table></div>
<div><h2>Per area</h2><table id="per-area">${countsHeader('area')}<tbody>${perArea}</tbody></table></div>
</section>
<section id="requirements">
<h2>Requirements</h2>
<div class="filters" role="toolbar" aria-label="Filter requirements">
${['all', ...OUTCOMES].map(outcomeButton).join('')}
<label>area <select id="area-filter"><option value="">all areas</option>${areaOptions}</select></label>
<span id="shown">${view.requirements.length} of ${view.requirements.length} requirements shown</span>
</div>
${view.requirements.map(requirementArticle).join('\n')}
<p id="none" hidden>No requirement matches these filters.</p>
</section>
</main>
<script>${REPORT_JS}</script>
</body>
</html>
`;
}

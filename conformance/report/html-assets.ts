/**
 * The style sheet and the filter script that report.html carries inline (no request leaves the page:
 * system fonts, no images; the page's Content-Security-Policy admits exactly these two by hash).
 */

export const REPORT_CSS = `
:root { color-scheme: light; --pass: #1a7f37; --fail: #cf222e; --warn: #9a6700; --skip: #6e7781; --line: #d0d7de; --soft: #f6f8fa; --ink: #1f2328; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: #fff; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 13px; }
header.verdict { padding: 20px 32px; border-bottom: 1px solid var(--line); border-left: 10px solid var(--skip); }
header.verdict-pass { border-left-color: var(--pass); background: #dafbe1; }
header.verdict-fail { border-left-color: var(--fail); background: #ffebe9; }
header.verdict-incomplete { border-left-color: #bc4c00; background: #fff1e5; }
header.verdict-error { border-left-color: var(--skip); background: var(--soft); }
h1 { margin: 0 0 4px; font-size: 28px; }
h1 .target { font-weight: 400; color: #444; font-size: 20px; }
h2 { font-size: 19px; margin: 28px 0 10px; }
.lead { font-size: 17px; margin: 4px 0 12px; }
.badge { float: right; margin-left: 16px; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0; font-size: 14px; }
dl.meta dt { color: #57606a; }
dl.meta dd { margin: 0; overflow-wrap: anywhere; }
main { padding: 0 32px 48px; max-width: 1280px; }
.errors { border: 1px solid var(--fail); background: #ffebe9; padding: 8px 16px; margin-top: 20px; border-radius: 6px; }
.errors.warnings { border-color: var(--warn); background: #fff8c5; }
.errors.repeat { border-color: var(--line); background: var(--soft); }
.findings { border: 2px solid var(--fail); padding: 8px 16px; margin-top: 20px; border-radius: 6px; }
.findings ol { padding-left: 24px; }
.finding { margin: 8px 0; }
.finding .headline, p.headline { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; }
.finding .breaks { margin: 2px 0 0; color: #57606a; }
.expected-failures { border: 1px solid var(--line); background: var(--soft); padding: 8px 16px; margin-top: 20px; border-radius: 6px; }
.passing-now { color: var(--fail); font-weight: 600; }
.tag { margin-left: 6px; font-size: 12px; padding: 1px 6px; border-radius: 10px; border: 1px solid var(--line); }
.tag.expected { background: #ddf4ff; }
.tag.consequence { background: var(--soft); }
.counts { display: flex; flex-wrap: wrap; gap: 32px; align-items: flex-start; }
table { border-collapse: collapse; font-size: 14px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 10px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
thead th { background: var(--soft); }
td.n-failed:not(.zero) { color: var(--fail); font-weight: 600; }
td.n-warning:not(.zero) { color: var(--warn); font-weight: 600; }
td.zero { color: #8c959f; }
button.area-link { background: none; border: 0; padding: 0; color: #0969da; cursor: pointer; font: inherit; text-decoration: underline; }
.filters {
  position: sticky; top: 0; z-index: 1; background: #fff; display: flex; flex-wrap: wrap; gap: 8px 16px;
  align-items: center; padding: 10px 0; border-bottom: 1px solid var(--line);
}
.filters button.outcome {
  border: 1px solid var(--line); background: var(--soft); border-radius: 16px; padding: 3px 12px; cursor: pointer;
  font: inherit; font-size: 14px;
}
.filters button.outcome[aria-pressed="true"] { background: var(--ink); color: #fff; border-color: var(--ink); }
.filters select { font: inherit; font-size: 14px; padding: 2px 6px; }
#shown { color: #57606a; font-size: 14px; }
#none { color: #57606a; padding: 16px 0; }
article.req { border-bottom: 1px solid var(--line); }
article.req > details > summary { cursor: pointer; padding: 8px 4px; display: flex; gap: 10px; align-items: baseline; flex-wrap: wrap; list-style: none; }
article.req > details > summary::before { content: "▸"; color: #8c959f; }
article.req > details[open] > summary::before { content: "▾"; }
article.req > details > summary:hover { background: var(--soft); }
.pill {
  display: inline-block; min-width: 64px; text-align: center; border-radius: 10px; padding: 0 8px; font-size: 12px;
  font-weight: 600; color: #fff; text-transform: uppercase; letter-spacing: .03em;
}
.pill.passed { background: var(--pass); }
.pill.failed { background: var(--fail); }
.pill.warning { background: var(--warn); }
.pill.skipped { background: var(--skip); }
.level { font-size: 12px; font-weight: 600; border: 1px solid var(--line); border-radius: 4px; padding: 0 5px; }
.level.MUST { border-color: var(--ink); }
.area { font-size: 12px; color: #57606a; }
.summary-text { flex: 1 1 320px; color: #333; }
.why { flex-basis: 100%; margin-top: -6px; padding-left: 84px; color: #57606a; font-size: 14px; font-style: italic; }
.req-body { padding: 0 8px 14px 30px; }
.reason { margin: 4px 0 10px; }
.reason.failed, .reason.warning { color: var(--fail); }
.notes { margin: 2px 0 6px; padding-left: 18px; color: #57606a; font-size: 12px; }
blockquote { margin: 8px 0; padding: 4px 12px; border-left: 4px solid var(--line); background: var(--soft); }
blockquote cite { display: block; font-style: normal; font-size: 13px; color: #57606a; }
.decision { margin: 8px 0; }
.decision .text { color: #333; font-size: 14px; }
.decision details > summary { cursor: pointer; color: #0969da; font-size: 14px; }
.decision .text.md {
  white-space: pre-wrap; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
  font-size: 12.5px; background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px;
  max-height: 420px; overflow: auto;
}
ol.tests { padding-left: 20px; margin: 8px 0; }
ol.tests li { margin: 6px 0; }
.test-status { font-weight: 600; }
.test-status.passed { color: var(--pass); }
.test-status.failed, .test-status.timedOut, .test-status.interrupted { color: var(--fail); }
.test-status.skipped { color: var(--skip); }
.loc { color: #57606a; font-size: 12px; }
pre {
  background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; white-space: pre-wrap;
  overflow-wrap: anywhere; margin: 4px 0; max-height: 420px; overflow: auto;
}
pre.curl { background: #0d1117; color: #e6edf3; border-color: #0d1117; }
.evidence h5 { margin: 10px 0 2px; font-size: 13px; }
@media print { .filters { display: none; } article.req[hidden] { display: block; } }
`;

/** Filters by outcome (buttons) and by area (select, or an area name in the counts table). */
export const REPORT_JS = `
(() => {
  const items = Array.from(document.querySelectorAll('article.req'));
  const buttons = Array.from(document.querySelectorAll('button[data-filter-outcome]'));
  const area = document.getElementById('area-filter');
  const shown = document.getElementById('shown');
  const none = document.getElementById('none');
  const state = { outcome: 'all', area: '' };
  function apply() {
    let visible = 0;
    for (const item of items) {
      const show = (state.outcome === 'all' || item.dataset.outcome === state.outcome) && (state.area === '' || item.dataset.area === state.area);
      item.hidden = !show;
      if (show) visible += 1;
    }
    for (const button of buttons) button.setAttribute('aria-pressed', String(button.dataset.filterOutcome === state.outcome));
    area.value = state.area;
    shown.textContent = visible + ' of ' + items.length + ' requirements shown';
    none.hidden = visible > 0;
  }
  for (const button of buttons) button.addEventListener('click', () => { state.outcome = button.dataset.filterOutcome; apply(); });
  area.addEventListener('change', () => { state.area = area.value; apply(); });
  for (const link of document.querySelectorAll('button[data-filter-area]')) {
    link.addEventListener('click', () => {
      state.area = link.dataset.filterArea;
      state.outcome = 'all';
      apply();
      document.getElementById('requirements').scrollIntoView();
    });
  }
  apply();
})();
`;

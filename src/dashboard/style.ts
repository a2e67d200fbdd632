/**
 * The dashboard's one stylesheet, served as `/dashboard/static/app.<hash>.css` (immutable, so the hash in
 * its name changes with its content) and linked from every page. No external fonts or assets: the system
 * font stack, a spacing scale (--s1..--s5), a colour scale with light and dark themes by
 * `prefers-color-scheme`, and one colour per board status (`.st-<status>`).
 */
export const APP_CSS = `
:root {
  color-scheme: light dark;
  --font: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
  --s1: 0.25rem; --s2: 0.5rem; --s3: 0.75rem; --s4: 1rem; --s5: 1.5rem;
  --r: 6px;
  --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --bg: #ffffff; --bg2: #f6f8fa; --card: #ffffff;
  --accent: #0b57d0; --focus: #ffbf47;
  --ok-bg: #dafbe1; --ok-fg: #116329; --warn-bg: #fff8c5; --warn-fg: #6a4b00; --bad-bg: #ffebe9; --bad-fg: #a0111f;
  --info-bg: #ddf4ff; --info-fg: #0a4b8c; --violet-bg: #fbefff; --violet-fg: #6e2a94; --grey-bg: #eaeef2; --grey-fg: #424a53;
}
@media (prefers-color-scheme: dark) {
  :root {
    --fg: #e6edf3; --muted: #9da7b3; --line: #30363d; --bg: #0d1117; --bg2: #161b22; --card: #1c2129;
    --accent: #79b8ff;
    --ok-bg: #12361f; --ok-fg: #7ee2a0; --warn-bg: #3b2e05; --warn-fg: #f2cc60; --bad-bg: #3d1418; --bad-fg: #ffa198;
    --info-bg: #0c2d4d; --info-fg: #a5d6ff; --violet-bg: #2e1a3d; --violet-fg: #e2b5ff; --grey-bg: #262c34; --grey-fg: #c9d1d9;
  }
}
* { box-sizing: border-box; }
body { font-family: var(--font); margin: 0; color: var(--fg); background: var(--bg); line-height: 1.45; }
a { color: var(--accent); }
code, .mono { font-family: var(--mono); font-size: 0.88em; }
a:focus, button:focus, input:focus, select:focus, textarea:focus, summary:focus { outline: 3px solid var(--focus); outline-offset: 1px; }
.skip { position: absolute; left: -999px; } .skip:focus { left: var(--s2); top: var(--s2); background: var(--bg); padding: var(--s1); }
header.top { display: flex; flex-wrap: wrap; gap: var(--s2) var(--s4); align-items: center; padding: var(--s2) var(--s4); background: var(--bg2); border-bottom: 1px solid var(--line); }
header.top .brand { font-weight: 700; text-decoration: none; color: var(--fg); display: inline-flex; gap: var(--s2); align-items: center; }
header.top form { margin-left: auto; }
nav.project ul { display: flex; flex-wrap: wrap; gap: var(--s1) var(--s4); list-style: none; margin: 0; padding: var(--s2) var(--s4); border-bottom: 1px solid var(--line); }
nav.project a { text-decoration: none; padding: var(--s1) 0; }
nav.project a[aria-current=page] { font-weight: 700; color: var(--fg); border-bottom: 2px solid var(--accent); }
main { padding: var(--s4); max-width: 100rem; margin: 0 auto; }
h1 { font-size: 1.4rem; margin: var(--s1) 0 var(--s3); } h2 { font-size: 1.15rem; margin: var(--s5) 0 var(--s2); }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: var(--s2); border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 0.85rem; color: var(--muted); font-weight: 600; }
.table-wrap { overflow-x: auto; }
.board { display: grid; grid-template-columns: repeat(auto-fit, minmax(12.5rem, 1fr)); gap: var(--s3); padding-bottom: var(--s2); }
.column { background: var(--bg2); border-radius: var(--r); padding: var(--s2); min-width: 0; border-top: 4px solid var(--line); }
.column h2 { font-size: 0.95rem; margin: 0 0 var(--s2); display: flex; justify-content: space-between; }
.empty-columns { color: var(--muted); font-size: 0.9rem; margin: var(--s2) 0; }
.cards { list-style: none; margin: 0; padding: 0; display: grid; gap: var(--s2); }
.card { background: var(--card); border: 1px solid var(--line); border-radius: var(--r); padding: var(--s2); overflow-wrap: anywhere; }
.card .key, .key { font-family: var(--mono); font-size: 0.85rem; }
.meta { color: var(--muted); font-size: 0.85rem; }
.badge { display: inline-block; border-radius: 999px; padding: 0 var(--s2); font-size: 0.8rem; border: 1px solid var(--line); background: var(--grey-bg); color: var(--grey-fg); }
.badge.stale, .badge.expired { background: var(--bad-bg); border-color: transparent; color: var(--bad-fg); }
.badge.soon { background: var(--warn-bg); border-color: transparent; color: var(--warn-fg); }
.badge.review { background: var(--info-bg); border-color: transparent; color: var(--info-fg); }
.badge.online { background: var(--ok-bg); border-color: transparent; color: var(--ok-fg); }
.status { border-color: transparent; }
.st-backlog, .st-sprint_backlog, .st-cancelled { --st-bg: var(--grey-bg); --st-fg: var(--grey-fg); }
.st-claimed { --st-bg: var(--violet-bg); --st-fg: var(--violet-fg); }
.st-in_progress { --st-bg: var(--info-bg); --st-fg: var(--info-fg); }
.st-blocked, .st-changes_requested { --st-bg: var(--bad-bg); --st-fg: var(--bad-fg); }
.st-needs_review, .st-review, .st-in_review, .st-qa { --st-bg: var(--warn-bg); --st-fg: var(--warn-fg); }
.st-done { --st-bg: var(--ok-bg); --st-fg: var(--ok-fg); }
.badge.status { background: var(--st-bg, var(--grey-bg)); color: var(--st-fg, var(--grey-fg)); }
.column[class*=st-] { border-top-color: var(--st-fg, var(--line)); }
.ledger { list-style: none; padding: 0; margin: 0; }
.ledger li { border-left: 4px solid var(--line); padding: var(--s1) var(--s3); margin: var(--s2) 0; background: var(--card); overflow-wrap: anywhere; }
.type { font-family: var(--mono); font-weight: 700; font-size: 0.8rem; padding: 0 var(--s1); border-radius: 3px; background: var(--bg2); }
.t-TESTED { border-left-color: var(--ok-fg) !important; } .t-TESTED .type { background: var(--ok-bg); color: var(--ok-fg); }
.t-BLOCKED, .t-ALERT, .t-ISSUE { border-left-color: var(--bad-fg) !important; } .t-BLOCKED .type, .t-ALERT .type, .t-ISSUE .type { background: var(--bad-bg); color: var(--bad-fg); }
.t-DECISION { border-left-color: var(--violet-fg) !important; } .t-DONE, .t-VERIFIED { border-left-color: var(--accent) !important; }
.evidence { background: var(--ok-bg); color: var(--fg); border: 1px solid var(--line); padding: var(--s1) var(--s2); white-space: pre-wrap; font-family: var(--mono); font-size: 0.85rem; margin: var(--s1) 0 0; overflow-wrap: anywhere; }
form.inline { display: inline; }
form.filters { display: flex; flex-wrap: wrap; gap: var(--s2) var(--s4); align-items: end; margin-bottom: var(--s3); }
label { font-weight: 600; display: block; font-size: 0.9rem; }
input[type=text], input[type=email], input[type=password], select, textarea { padding: var(--s1) var(--s2); font: inherit; max-width: 100%; color: var(--fg); background: var(--card); border: 1px solid var(--line); border-radius: 4px; }
textarea { width: 100%; min-height: 4rem; }
button { font: inherit; padding: var(--s1) var(--s3); cursor: pointer; border-radius: 4px; border: 1px solid var(--line); background: var(--bg2); color: var(--fg); }
button[type=submit] { background: var(--accent); color: var(--bg); border-color: var(--accent); }
.error { color: var(--bad-fg); font-weight: 600; }
.once { border: 2px solid var(--ok-fg); padding: var(--s3); background: var(--ok-bg); }
.code-big { font-size: 1.4rem; font-family: var(--mono); }
pre.cmd { white-space: pre-wrap; word-break: break-all; background: var(--bg2); padding: var(--s2); }
.pre-wrap { white-space: pre-wrap; }
.pager { display: flex; gap: var(--s4); margin: var(--s3) 0; }
dl.fields { display: grid; grid-template-columns: max-content 1fr; gap: var(--s1) var(--s4); } dl.fields dt { font-weight: 600; } dl.fields dd { margin: 0; overflow-wrap: anywhere; }
.signin { max-width: 24rem; margin: 3rem auto; }
.signin input { width: 100%; margin-bottom: var(--s2); }
.panel { border: 1px solid var(--line); border-radius: var(--r); padding: var(--s3); background: var(--card); margin: var(--s3) 0; }
.picture { width: 100%; height: auto; max-width: 60rem; display: block; }
svg.burndown { max-width: 40rem; }
.picture text { fill: var(--fg); font-family: var(--font); }
.picture .axis { stroke: var(--muted); }
.picture .ideal { stroke: var(--muted); }
.picture .actual { stroke: var(--accent); }
.picture .lane { fill: var(--bg2); }
.legend { display: flex; flex-wrap: wrap; gap: var(--s1) var(--s3); list-style: none; padding: 0; margin: var(--s2) 0; font-size: 0.85rem; }
.swatch { display: inline-block; width: 0.8rem; height: 0.8rem; border-radius: 2px; vertical-align: middle; margin-right: var(--s1); }
details.explain { font-size: 0.85rem; color: var(--muted); } details.explain summary { cursor: pointer; }
@media (max-width: 40rem) { main { padding: var(--s2); } dl.fields { grid-template-columns: 1fr; } th, td { padding: var(--s1); } header.top form { margin-left: 0; } }
`;

/** A short content hash (FNV-1a): the stylesheet's URL changes whenever its text does. */
function fnv1a(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

export const APP_CSS_PATH = `/dashboard/static/app.${fnv1a(APP_CSS)}.css`;

/** The service's icon: a board of three lanes on the accent colour. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">` +
  `<rect width="32" height="32" rx="7" fill="#0b57d0"/>` +
  `<rect x="6" y="7" width="5" height="18" rx="1.5" fill="#fff"/>` +
  `<rect x="13.5" y="7" width="5" height="12" rx="1.5" fill="#fff" opacity="0.85"/>` +
  `<rect x="21" y="7" width="5" height="7" rx="1.5" fill="#fff" opacity="0.7"/></svg>`;

/** `/favicon.ico`: the same picture as a 16x16 32-bit ICO (BMP inside), built once from the lane shapes. */
export function faviconIco(): Uint8Array {
  const n = 16;
  const xor = new Uint8Array(n * n * 4);
  const inBar = (x: number, y: number) =>
    y >= 3 &&
    ((x >= 3 && x <= 5 && y <= 12) || (x >= 7 && x <= 9 && y <= 9) || (x >= 11 && x <= 13 && y <= 6));
  for (let row = 0; row < n; row++) {
    const y = n - 1 - row; // BMP rows run bottom-up
    for (let x = 0; x < n; x++) {
      const o = (row * n + x) * 4;
      const [b, g, r] = inBar(x, y) ? [255, 255, 255] : [0xd0, 0x57, 0x0b];
      xor.set([b, g, r, 255], o);
    }
  }
  const mask = new Uint8Array(n * 4); // 1 bit per pixel, rows padded to 4 bytes, all opaque
  const header = new DataView(new ArrayBuffer(6 + 16 + 40));
  header.setUint16(2, 1, true); // type: icon
  header.setUint16(4, 1, true); // one image
  header.setUint8(6, n);
  header.setUint8(7, n);
  header.setUint16(10, 1, true);
  header.setUint16(12, 32, true);
  header.setUint32(14, 40 + xor.length + mask.length, true);
  header.setUint32(18, 22, true);
  header.setUint32(22, 40, true); // BITMAPINFOHEADER
  header.setInt32(26, n, true);
  header.setInt32(30, n * 2, true);
  header.setUint16(34, 1, true);
  header.setUint16(36, 32, true);
  const out = new Uint8Array(62 + xor.length + mask.length);
  out.set(new Uint8Array(header.buffer), 0);
  out.set(xor, 62);
  out.set(mask, 62 + xor.length);
  return out;
}

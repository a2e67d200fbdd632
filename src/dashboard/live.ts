/**
 * The dashboard's progressive enhancement, served as /dashboard.js (CSP `script-src 'self'`). Without it
 * every page works; with it the page's `[data-live]` region is re-fetched when the project's event
 * stream (Server-Sent Events, resumed with Last-Event-ID by the browser) reports a change.
 */
export const LIVE_JS = `(() => {
  for (const b of document.querySelectorAll("[data-copy]")) {
    b.addEventListener("click", () => {
      const el = document.getElementById(b.dataset.copy);
      if (el && navigator.clipboard) navigator.clipboard.writeText(el.textContent.trim()).then(() => { b.textContent = "Copied"; });
    });
  }
  const src = document.body.dataset.events;
  if (!src || !window.EventSource || !document.querySelector("[data-live]")) return;
  let timer = null, busy = false, again = false;
  const refresh = async () => {
    if (busy) { again = true; return; }
    busy = true;
    try {
      const res = await fetch(location.href, { credentials: "same-origin", headers: { "X-Live-Refresh": "1" } });
      if (res.ok) {
        const doc = new DOMParser().parseFromString(await res.text(), "text/html");
        const fresh = doc.querySelectorAll("[data-live]");
        document.querySelectorAll("[data-live]").forEach((el, i) => {
          if (fresh[i]) el.replaceChildren(...Array.from(fresh[i].childNodes).map((n) => document.importNode(n, true)));
        });
        document.body.dataset.refreshed = String(Number(document.body.dataset.refreshed || 0) + 1);
      }
    } finally {
      busy = false;
      if (again) { again = false; refresh(); }
    }
  };
  const es = new EventSource(src);
  es.onmessage = () => { clearTimeout(timer); timer = setTimeout(refresh, 100); };
})();
`;

// The pit overview, live: the server sends the overview's body when it changes (an "overview"
// event, checked every few seconds; a "beat" otherwise) and the page swaps it in place: no
// reload, the keyboard focus kept on the link it was on. (EventSource reconnects by itself, to
// the URL it opened with: the first overview after a reconnect may be the one already shown.)
"use strict";
(() => {
  const box = () => document.getElementById("overview");
  if (!box()) return;
  // what this page shows: the stream sends a new overview only when it differs
  const source = new EventSource("/events?shown=" + encodeURIComponent(box().dataset.version || ""));
  source.addEventListener("overview", (ev) => {
    const data = JSON.parse(ev.data);
    const fresh = new DOMParser().parseFromString(data.html, "text/html").getElementById("overview");
    if (!fresh) return;
    const focused = document.activeElement && document.activeElement.getAttribute("href");
    box().replaceWith(document.adoptNode(fresh));
    if (focused) {
      const again = [...box().querySelectorAll("a[href]")].find((a) => a.getAttribute("href") === focused);
      if (again) again.focus();
    }
    document.getElementById("as-of").textContent = data.now;
    document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
  });
  source.addEventListener("beat", (ev) => { document.getElementById("as-of").textContent = JSON.parse(ev.data).now; });
})();

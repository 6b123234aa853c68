// The session as a page holds it, on the table page and the pit pages alike: its secret, a
// refusal said in words with the way back, and the logout control.
//
// The session's secret (every change carries it in X-CSRF-Token) is on the page that opened
// the session only: a GET with the cookie alone never gets it again, so a server on another
// port of the host that is sent the cookie cannot act with it. The page keeps it in this
// origin's localStorage (scheme, host and port: a page of another port cannot read it).
"use strict";
const SESSION = (() => {
  const KEY = "tablectl.secret";
  const meta = document.querySelector('meta[name="csrf-token"]');
  if (meta && meta.content) localStorage.setItem(KEY, meta.content);
  const secret = () => localStorage.getItem(KEY) || "";

  // End the session (with its secret) and clear the cookie (the view does both), then go to the
  // login (a view without a token sends the browser on to a new page with a new session).
  async function logout() {
    try {
      await fetch("/logout", {
        method: "POST", body: "{}", credentials: "same-origin", redirect: "manual",
        headers: { "content-type": "application/json", "x-csrf-token": secret() },
      });
    } catch (err) { /* the view is not answering: forget the key all the same */ }
    localStorage.removeItem(KEY);
    location.assign("/login");
  }

  // A 401 or 403 said in words, with the way back: a new session (log in again).
  function denied(status, text) {
    const box = document.getElementById("denied");
    if (!box) return;
    const why = text || (status === 401
      ? "401: your session has ended (logged out, 12 hours passed, or the view restarted)."
      : status + ": the view refused this request.");
    const words = document.createElement("span"); words.id = "denied-why"; words.textContent = why + " ";
    const back = document.createElement("button"); back.type = "button"; back.id = "way-back";
    back.textContent = "Log in again";
    back.addEventListener("click", logout);
    box.replaceChildren(words, back);
    box.hidden = false;
    document.body.dataset.denied = String(status);
  }

  const button = document.getElementById("logout");
  if (button) button.addEventListener("click", logout);
  return { secret, denied, logout };
})();

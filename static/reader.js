// Progressive enhancement of the reader buttons (save, thumbs, follow, mute, claim): every one
// is a plain form that works without this file. With it, a button acts in place (a fetch that
// asks for JSON) and shared pages, which do not know who reads them, are marked with what the
// signed-in reader did (/for-you/state.json).
(function () {
  "use strict";
  function press(button, on) { button.setAttribute("aria-pressed", on ? "true" : "false"); }

  function markSave(form, saved) {
    var id = form.closest("[data-paper]").getAttribute("data-paper");
    form.action = "/papers/" + id + (saved ? "/unsave" : "/save");
    var button = form.querySelector("button");
    press(button, saved);
    button.textContent = saved ? "Saved \u2713" : "Save";
  }

  function markThumb(form, thumb) {
    form.querySelectorAll("button[data-thumb]").forEach(function (button) {
      var up = button.getAttribute("data-thumb") === "up";
      var on = (up && thumb === 1) || (!up && thumb === -1);
      press(button, on);
      button.value = on ? "none" : (up ? "up" : "down");
    });
  }

  // A follow or mute button pressed reads as its undo, and the box's status line says so.
  function markStance(box, stance) {
    var said = box.querySelector("[data-stance-said]");
    if (said) { said.textContent = ""; }
    box.querySelectorAll("form").forEach(function (form) {
      var verb = form.getAttribute("data-reader");
      var on = verb === stance;
      var button = form.querySelector("button");
      press(button, on);
      var label = button.getAttribute(on ? "data-on" : "data-off");
      if (label) { button.textContent = label; }
      if (on && said) { said.textContent = form.getAttribute("data-said") || ""; }
      var undo = form.querySelector("input[name=undo]");
      if (on && !undo) {
        undo = document.createElement("input");
        undo.type = "hidden"; undo.name = "undo"; undo.value = "1";
        form.appendChild(undo);
      } else if (!on && undo) { undo.remove(); }
    });
  }

  function markClaim(box, claimed) {
    press(box.querySelector("form[data-reader=claim] button"), claimed);
  }

  function following(box) {
    var button = box && box.querySelector("form[data-reader=follow] button");
    return button ? button.getAttribute("aria-pressed") === "true" : false;
  }

  // The page's follower count, moved by the reader's own press (the count is of readers).
  // A card's organization button is not the page's: it leaves the count alone.
  var PAGE_FOLLOW = "[data-follow], [data-follow-person], [data-follow-organization]:not([data-card])";
  function countFollow(form) {
    var box = form.closest(PAGE_FOLLOW);
    var count = document.querySelector("[data-followers]");
    if (!box || !count || document.querySelectorAll(PAGE_FOLLOW).length !== 1) { return; }
    var now = form.getAttribute("data-reader") === "follow" && !form.querySelector("input[name=undo]");
    var moved = (now ? 1 : 0) - (following(box) ? 1 : 0);
    if (!moved) { return; }
    var n = Math.max(0, Number(count.getAttribute("data-followers")) + moved);
    count.setAttribute("data-followers", String(n));
    count.textContent = count.getAttribute(n === 1 ? "data-one" : "data-many").replace("{n}", String(n));
  }

  function apply(state) {
    if (!state || !state.signed_in) { return; }
    var saved = state.saved || [];
    var feedback = state.feedback || {};
    document.querySelectorAll("[data-paper]").forEach(function (box) {
      var id = box.getAttribute("data-paper");
      var save = box.querySelector("form[data-reader=save]");
      if (save) { markSave(save, saved.indexOf(id) >= 0); }
      var thumbs = box.querySelector("form[data-reader=feedback]");
      if (thumbs) { markThumb(thumbs, feedback[id] || 0); }
    });
    document.querySelectorAll("[data-follow]").forEach(function (box) {
      var base = box.getAttribute("data-follow");
      var topic = base.indexOf("/topics/") === 0;
      var ident = topic ? Number(base.slice(8)) : decodeURIComponent(base.slice(9));
      var follows = (topic ? state.followed_topics : state.followed_authors) || [];
      var mutes = (topic ? state.muted_topics : state.muted_authors) || [];
      markStance(box, follows.indexOf(ident) >= 0 ? "follow" : (mutes.indexOf(ident) >= 0 ? "mute" : ""));
    });
    document.querySelectorAll("[data-claim]").forEach(function (box) {
      markClaim(box, !state.claimed_person && state.claimed_author === box.getAttribute("data-claim"));
    });
    document.querySelectorAll("[data-follow-person]").forEach(function (box) {
      var person = Number(box.getAttribute("data-follow-person"));
      markStance(box, (state.followed_people || []).indexOf(person) >= 0 ? "follow" : "");
    });
    document.querySelectorAll("[data-follow-organization]").forEach(function (box) {
      var slug = box.getAttribute("data-follow-organization");
      markStance(box, (state.followed_organizations || []).indexOf(slug) >= 0 ? "follow" : "");
    });
    document.querySelectorAll("[data-claim-person]").forEach(function (box) {
      markClaim(box, state.claimed_person === Number(box.getAttribute("data-claim-person")));
    });
  }

  function refresh() {
    fetch("/for-you/state.json", { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(apply)
      .catch(function () { /* the buttons still work as forms */ });
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    var kind = form.getAttribute && form.getAttribute("data-reader");
    // Other forms (the feed's, "For you"'s lists) change the page itself: let them load it;
    // so does a person's claim, whose answer page says what arXiv found (data-full).
    if (!kind || form.hasAttribute("data-full")) { return; }
    event.preventDefault();
    var body = new URLSearchParams(new FormData(form, event.submitter || null));
    fetch(form.action, {
      method: "POST", body: body, credentials: "same-origin",
      headers: { Accept: "application/json" }
    }).then(function (response) {
      if (response.status === 401) { window.location.href = "/signin"; return; }
      if (response.ok) {
        countFollow(form);
        refresh();
      }
    });
  });

  document.addEventListener("DOMContentLoaded", function () {
    if (document.querySelector("[data-paper], [data-follow], [data-claim], [data-follow-person], [data-claim-person], [data-follow-organization]")) { refresh(); }
  });
})();

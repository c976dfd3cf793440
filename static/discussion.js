// Progressive enhancement of a paper's discussion (templates/pages/_thread.html): every comment
// form is a plain POST that works without this file. With it, a form is sent with fetch asking
// for JSON, and the comment as the server renders it takes its place on the page (a new comment
// at the end of the thread, a reply under its comment, an edit or a deletion where it was), its
// maths rendered by the page's KaTeX (static/math.js). The thread's status line, an aria-live
// region, says what was done or, in words, why not.
(function () {
  "use strict";

  function say(text) {
    var line = document.querySelector("[data-thread-said]");
    if (line) { line.textContent = text; }
  }

  function parsed(html) {
    var holder = document.createElement("template");
    holder.innerHTML = html;
    return Array.prototype.slice.call(holder.content.children);
  }

  function topList() {
    var list = document.querySelector("[data-thread-comments]");
    if (list) { return list; }
    list = document.createElement("ol");
    list.className = "comments";
    list.setAttribute("data-thread-comments", "");
    var empty = document.querySelector("[data-thread-empty]");
    if (empty) { empty.replaceWith(list); } else { document.querySelector("[data-thread-said]").after(list); }
    return list;
  }

  // Where the server's HTML goes: in place of the comment it shows (an edit, a deletion, a
  // report, or a form sent twice), under the comment a reply answers, or at the thread's end.
  function place(form, kind, result) {
    var fresh = parsed(result.item);
    var at = document.getElementById("comment-" + result.comment.id);
    if (at) {
      at.replaceWith(fresh[0]);
    } else if (kind === "reply") {
      form.closest("li.replies").querySelector("ol.comments").appendChild(fresh[0]);
    } else {
      var list = topList();
      fresh.forEach(function (node) { list.appendChild(node); });
    }
    if (window.paperboyMath) { window.paperboyMath(fresh[0]); }
  }

  function count(by) {
    var title = document.getElementById("discussion-title");
    var found = title && /\((\d+)\)/.exec(title.textContent);
    if (!found || !by) { return; }
    title.textContent = title.textContent.replace(found[0], "(" + Math.max(0, Number(found[1]) + by) + ")");
  }

  // A form used again posts anew: a fresh one-time value, an empty box, the name asked once.
  function reset(form, kind, result) {
    var once = form.querySelector("input[name=once]");
    if (once) {
      var reply = form.querySelector("input[name=reply_to]");
      once.value = result.once + (reply ? "-" + reply.value : "");
    }
    if (kind === "post" || kind === "reply") { form.reset(); }
    document.querySelectorAll("#discussion input[name=name]").forEach(function (input) {
      input.closest("label").remove();
    });
    var fold = form.closest("details");
    if (fold && document.body.contains(fold)) { fold.open = false; }
  }

  function refusal(response) {
    return response.text().then(function (html) {
      var page = new DOMParser().parseFromString(html, "text/html");
      var why = page.querySelector("p.error");
      return (why ? why.textContent : "The server answered " + response.status + ".");
    });
  }

  function send(form, kind, button) {
    var body = new URLSearchParams(new FormData(form));
    if (button) { button.disabled = true; }
    say("Sending\u2026");
    fetch(form.action, {
      method: "POST", body: body, credentials: "same-origin",
      headers: { Accept: "application/json" }
    }).then(function (response) {
      if (response.redirected) { window.location.href = response.url; return null; }
      if (!response.ok) {
        return refusal(response).then(function (why) { say("Not done: " + why); return null; });
      }
      return response.json();
    }).then(function (result) {
      if (!result) { return; }
      reset(form, kind, result);
      place(form, kind, result);
      var shown = !result.waiting && (kind === "post" || kind === "reply");
      count(shown ? 1 : (kind === "delete" ? -1 : 0));
      say(result.said);
    }).catch(function () {
      say("Not sent: the connection failed. Your text is still in the box; try again.");
    }).then(function () {
      if (button) { button.disabled = false; }
    });
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    var kind = form.getAttribute && form.getAttribute("data-comment-form");
    if (!kind) { return; }
    event.preventDefault();
    send(form, kind, event.submitter || form.querySelector("button[type=submit]"));
  });
})();

// A server's page: the tool search, the table of contents, copy buttons and links to a tool
// (#tool-NAME opens it). Loaded from a file (the Content-Security-Policy forbids inline
// script); it changes the page through the DOM only, never by writing HTML.
(function () {
  "use strict";

  // Search: filter the tool list by name, title and the description's first line. Every
  // word typed must occur (case-insensitive); groups with no match hide with their TOC entry.
  function setupSearch() {
    var input = document.getElementById("search-tools");
    if (!input) return;
    var count = document.getElementById("search-count");
    var none = document.getElementById("search-none");
    var items = Array.prototype.slice.call(document.querySelectorAll("li.tool"));
    var text = items.map(function (li) {
      var s = li.querySelector("summary");
      return ((li.getAttribute("data-tool") || "") + " " + (s ? s.textContent : "")).toLowerCase();
    });
    var groups = Array.prototype.slice.call(document.querySelectorAll("section.tool-group"));
    var tocEntries = {};
    document.querySelectorAll("nav.toc li[data-group]").forEach(function (li) {
      tocEntries[li.getAttribute("data-group")] = li;
    });

    function filter() {
      var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      var shown = 0;
      items.forEach(function (li, i) {
        var match = words.every(function (w) { return text[i].indexOf(w) >= 0; });
        li.hidden = !match;
        if (match) shown++;
      });
      groups.forEach(function (g) {
        var empty = !g.querySelector("li.tool:not([hidden])");
        g.hidden = empty;
        var entry = tocEntries[g.id];
        if (entry) entry.hidden = empty;
      });
      count.textContent = words.length ? shown + " of " + items.length + " tools" : "";
      none.hidden = shown > 0;
    }
    input.addEventListener("input", filter);
    input.addEventListener("search", filter);
    if (input.value) filter(); // the browser kept a query across a reload
  }

  // Copy buttons after every .copy element. Without the Clipboard API (a page served over
  // plain HTTP on another host is not a secure context) the button selects the text instead.
  function setupCopy() {
    document.querySelectorAll(".copy").forEach(function (target) {
      var btn = document.createElement("button");
      btn.type = "button";
      btn.className = "copy-button";
      btn.textContent = "Copy";
      btn.setAttribute("aria-label", "Copy: " + target.textContent.slice(0, 60));
      btn.addEventListener("click", function () { copy(btn, target); });
      target.insertAdjacentElement("afterend", btn);
    });
  }

  function copy(btn, target) {
    var text = target.textContent;
    function done(state, label) {
      btn.setAttribute("data-copied", state);
      btn.textContent = label;
      setTimeout(function () { btn.textContent = "Copy"; }, 2500);
    }
    function selectInstead() {
      var sel = window.getSelection();
      if (sel) sel.selectAllChildren(target);
      done("selected", "Selected: press Ctrl+C");
    }
    var cb = window.isSecureContext && navigator.clipboard;
    if (!cb || typeof cb.writeText !== "function") {
      selectInstead();
      return;
    }
    cb.writeText(text).then(function () { done("copied", "Copied"); }, selectInstead);
  }

  // #tool-NAME opens that tool (tryit.js, loaded before this script, then loads it).
  function openFromHash() {
    var id;
    try { id = decodeURIComponent(location.hash.slice(1)); } catch (e) { return; } // a malformed %-escape
    if (id.indexOf("tool-") !== 0) return;
    var li = document.getElementById(id);
    var d = li && li.querySelector("details");
    if (!d) return;
    if (li.hidden) {
      var input = document.getElementById("search-tools");
      input.value = "";
      input.dispatchEvent(new Event("input"));
    }
    d.open = true;
    li.scrollIntoView();
  }

  setupSearch();
  setupCopy();
  window.addEventListener("hashchange", openFromHash);
  openFromHash();
})();

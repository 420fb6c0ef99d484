// Try-it forms: call a tool through this server's own MCP endpoint (stateless 2026-07-28
// request) and show the result. Results are shown with textContent, never as HTML.
(function () {
  "use strict";
  var endpoint = document.body.getAttribute("data-endpoint");
  var version = "2026-07-28";
  var nextId = 1;

  function parseSSE(text) {
    // The endpoint may answer as an event stream: take the last JSON-RPC response in it.
    var last = null;
    text.split(/\r?\n\r?\n/).forEach(function (ev) {
      var data = ev.split(/\r?\n/).filter(function (l) { return l.indexOf("data:") === 0; })
        .map(function (l) { return l.slice(5).replace(/^ /, ""); }).join("\n");
      if (!data) return;
      try { var m = JSON.parse(data); if (m && (m.result || m.error)) last = m; } catch (e) { /* skip */ }
    });
    return last;
  }

  function b64(s) {
    var bytes = new TextEncoder().encode(s), bin = "";
    bytes.forEach(function (b) { bin += String.fromCharCode(b); });
    return "=?base64?" + btoa(bin) + "?=";
  }

  function show(out, status, value) {
    out.hidden = false;
    out.textContent = typeof value === "string" ? value : JSON.stringify(value, null, 2);
    out.setAttribute("data-status", status);
  }

  document.querySelectorAll("form.try-it").forEach(function (form) {
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var tool = form.getAttribute("data-tool");
      var out = form.parentNode.querySelector("pre.try-it-result");
      out.removeAttribute("data-status");
      var args;
      try {
        args = JSON.parse(form.querySelector("textarea[name=arguments]").value || "{}");
      } catch (e) {
        show(out, "error", "The arguments are not valid JSON: " + e.message);
        return;
      }
      var body = {
        jsonrpc: "2.0", id: nextId++, method: "tools/call",
        params: {
          name: tool, arguments: args,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": { name: "mcpbridge-try-it", version: "1" }
          }
        }
      };
      var name = /^[\x20-\x7e]*$/.test(tool) ? tool : b64(tool);
      out.hidden = false;
      out.textContent = "Calling " + tool + "…";
      fetch(endpoint, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          "Accept": "application/json, text/event-stream",
          "MCP-Protocol-Version": version,
          "Mcp-Method": "tools/call",
          "Mcp-Name": name
        },
        body: JSON.stringify(body)
      }).then(function (resp) {
        return resp.text().then(function (text) {
          var msg = null;
          var ct = resp.headers.get("Content-Type") || "";
          if (ct.indexOf("text/event-stream") === 0) msg = parseSSE(text);
          else { try { msg = JSON.parse(text); } catch (e) { msg = null; } }
          if (!msg) { show(out, "error", "HTTP " + resp.status + ": " + text); return; }
          if (msg.error) { show(out, "error", msg.error); return; }
          show(out, msg.result && msg.result.isError ? "error" : "ok", msg.result);
        });
      }).catch(function (e) {
        show(out, "error", "Request failed: " + e.message);
      });
    });
  });
})();

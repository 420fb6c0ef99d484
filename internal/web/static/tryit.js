// A tool's details and try-it form, loaded when the tool is opened on a server's page: its
// description, arguments and schemas from GET {tools-url}?name=TOOL, a form built from the
// input schema (or a raw JSON editor), and the call through this server's own MCP endpoint
// (a stateless 2026-07-28 request) with the result shown as content. Everything a server
// or a tool sent is put on the page as text (textContent, attributes), never as HTML.
(function () {
  "use strict";
  var endpoint = document.body.getAttribute("data-endpoint");
  var toolsURL = document.body.getAttribute("data-tools-url");
  var version = "2026-07-28";
  var nextId = 1;
  var nextField = 1;

  // el makes an element with attributes and children (nodes or strings, added as text).
  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (attrs[k] !== null && attrs[k] !== undefined && attrs[k] !== false) e.setAttribute(k, attrs[k] === true ? "" : attrs[k]);
    });
    (children || []).forEach(function (c) {
      if (c !== null && c !== undefined) e.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return e;
  }

  function pretty(v) { return JSON.stringify(v, null, 2); }

  // --- loading a tool when its <details> opens ------------------------------------------------

  document.addEventListener("toggle", function (ev) {
    var d = ev.target;
    if (!d || d.tagName !== "DETAILS" || !d.open || d.hasAttribute("data-loaded")) return;
    var li = d.parentNode;
    if (!li || !li.classList || !li.classList.contains("tool")) return;
    d.setAttribute("data-loaded", "loading");
    var box = el("div", { "class": "tool-body" }, [el("p", { "class": "muted" }, ["Loading…"])]);
    d.appendChild(box);
    load(li.getAttribute("data-tool"), d, box);
  }, true);

  function load(name, d, box) {
    fetch(toolsURL + "?name=" + encodeURIComponent(name), { headers: { "Accept": "application/json" } })
      .then(function (resp) {
        return resp.json().then(function (data) {
          if (!resp.ok || !data.tools || data.tools.length !== 1) {
            throw new Error(data && data.error ? data.error : "HTTP " + resp.status);
          }
          box.textContent = "";
          renderTool(box, data.tools[0]);
          d.setAttribute("data-loaded", "ok");
        });
      })
      .catch(function (e) {
        box.textContent = "";
        box.appendChild(el("p", { "class": "error" }, ["Could not load the tool: " + e.message]));
        d.setAttribute("data-loaded", "error");
      });
  }

  // --- a tool's details --------------------------------------------------------------------

  function renderTool(box, tool) {
    if (tool.description) box.appendChild(el("p", { "class": "tool-description" }, [tool.description]));
    var hints = annotationHints(tool.annotations);
    if (hints.length) box.appendChild(el("p", { "class": "hints" }, hints.map(function (h) { return el("span", { "class": "hint" }, [h]); })));
    var schema = tool.inputSchema || {};
    box.appendChild(argumentTable(schema));
    box.appendChild(el("details", { "class": "schema" }, [el("summary", {}, ["Input schema"]), el("pre", {}, [pretty(schema)])]));
    if (tool.outputSchema) {
      box.appendChild(el("details", { "class": "schema" }, [el("summary", {}, ["Output schema"]), el("pre", {}, [pretty(tool.outputSchema)])]));
    }
    var out = el("div", { "class": "try-it-result", "data-tool": tool.name, "aria-live": "polite", hidden: true });
    box.appendChild(buildForm(tool, schema, out));
    box.appendChild(out);
  }

  function annotationHints(a) {
    if (!a) return [];
    var out = [];
    if (a.readOnlyHint) out.push("read-only");
    if (a.destructiveHint === true) out.push("destructive");
    if (a.idempotentHint) out.push("idempotent");
    if (a.openWorldHint === true) out.push("open world");
    return out;
  }

  function properties(schema) {
    var props = schema && typeof schema.properties === "object" && schema.properties ? schema.properties : {};
    var req = Array.isArray(schema && schema.required) ? schema.required : [];
    return Object.keys(props).map(function (n) {
      var ps = props[n] && typeof props[n] === "object" ? props[n] : {};
      return { name: n, schema: ps, required: req.indexOf(n) >= 0 };
    });
  }

  function typeOf(ps) {
    var t = ps.type;
    if (Array.isArray(t)) t = t.filter(function (x) { return x !== "null"; })[0];
    return typeof t === "string" ? t : "";
  }

  function typeLabel(ps) {
    var t = typeOf(ps) || "any";
    if (t === "array" && ps.items && typeOf(ps.items)) t = "array of " + typeOf(ps.items);
    if (Array.isArray(ps.enum)) t += " (one of " + ps.enum.map(function (v) { return JSON.stringify(v); }).join(", ") + ")";
    return t;
  }

  function argumentTable(schema) {
    var props = properties(schema);
    if (!props.length) return el("p", { "class": "muted" }, ["No arguments."]);
    var rows = props.map(function (p) {
      var desc = [p.schema.title, p.schema.description].filter(function (s) { return typeof s === "string" && s; }).join(": ");
      return el("tr", {}, [el("td", {}, [el("code", {}, [p.name]), p.required ? el("span", { "class": "required" }, [" (required)"]) : null]),
        el("td", {}, [typeLabel(p.schema)]), el("td", {}, [desc])]);
    });
    return el("table", { "class": "args" }, [
      el("thead", {}, [el("tr", {}, ["Argument", "Type", "Description"].map(function (h) { return el("th", {}, [h]); }))]),
      el("tbody", {}, rows)
    ]);
  }

  // --- the form built from the input schema ------------------------------------------------

  var scalar = { string: true, number: true, integer: true, boolean: true };

  // fieldKind is how a property is edited: enum (a select), string, number, integer, boolean,
  // list (an array of scalars, one item per line) or json (anything else, as JSON text).
  function fieldKind(ps) {
    var t = typeOf(ps);
    if (Array.isArray(ps.enum) && ps.enum.length) return "enum";
    if (scalar[t]) return t;
    if (t === "array" && ps.items && (scalar[typeOf(ps.items)] || Array.isArray(ps.items.enum)) && typeOf(ps.items) !== "") return "list";
    return "json";
  }

  function buildForm(tool, schema, out) {
    var fields = properties(schema).map(field);
    var fieldset = el("fieldset", { "class": "fields" }, fields.length
      ? fields.map(function (f) { return f.node; })
      : [el("p", { "class": "muted" }, ["This tool takes no arguments."])]);
    var raw = el("textarea", { name: "arguments", rows: "6", spellcheck: "false", "aria-label": "Arguments (JSON)" }, []);
    var rawBox = el("label", { "class": "raw-arguments", hidden: true }, ["Arguments (JSON)", raw]);
    var toggle = el("button", { type: "button", "class": "try-it-mode" }, ["Edit as JSON"]);
    var problem = el("p", { "class": "error form-problem", hidden: true }, []);
    var form = el("form", { "class": "try-it", "data-tool": tool.name, "data-mode": "form", novalidate: true }, [
      fieldset, rawBox, problem,
      el("p", { "class": "buttons" }, [el("button", { type: "submit" }, ["Call " + tool.name]), " ", toggle])
    ]);
    raw.value = pretty(collect(fields).args);

    function fail(msg) { problem.textContent = msg; problem.hidden = false; }

    toggle.addEventListener("click", function () {
      problem.hidden = true;
      if (form.getAttribute("data-mode") === "form") {
        raw.value = pretty(collect(fields).args);
        form.setAttribute("data-mode", "json");
        fieldset.hidden = true; rawBox.hidden = false; toggle.textContent = "Use the form";
        return;
      }
      var args;
      try { args = JSON.parse(raw.value || "{}"); } catch (e) { fail("The arguments are not valid JSON: " + e.message); return; }
      if (!args || typeof args !== "object" || Array.isArray(args)) { fail("The arguments must be a JSON object."); return; }
      fields.forEach(function (f) { f.set(args[f.name]); });
      form.setAttribute("data-mode", "form");
      fieldset.hidden = false; rawBox.hidden = true; toggle.textContent = "Edit as JSON";
    });

    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      problem.hidden = true;
      var args;
      if (form.getAttribute("data-mode") === "json") {
        try { args = JSON.parse(raw.value || "{}"); } catch (e) { showText(out, "error", "The arguments are not valid JSON: " + e.message); return; }
      } else {
        var c = collect(fields);
        if (c.errors.length) { fail(c.errors.join(" ")); return; }
        args = c.args;
      }
      call(tool.name, args, out);
    });
    return form;
  }

  // field makes the control of one property; it returns {name, node, get, set}, where get
  // returns {value} (none when the field is empty) or {error}.
  function field(p) {
    var ps = p.schema, kind = fieldKind(ps), id = "arg-" + nextField++;
    var control, get, set;
    var hint = { string: "", number: "number", integer: "integer", boolean: "", enum: "",
      list: "one item per line", json: "JSON" }[kind];
    if (kind === "enum") {
      control = el("select", { id: id }, [p.required ? null : el("option", { value: "" }, ["(not set)"])].concat(
        ps.enum.map(function (v, i) { return el("option", { value: String(i) }, [typeof v === "string" ? v : JSON.stringify(v)]); })));
      get = function () { return control.value === "" ? {} : { value: ps.enum[Number(control.value)] }; };
      set = function (v) {
        var i = ps.enum.findIndex(function (x) { return JSON.stringify(x) === JSON.stringify(v); });
        control.value = i < 0 ? (p.required ? "0" : "") : String(i);
      };
    } else if (kind === "boolean") {
      control = el("select", { id: id }, [p.required ? null : el("option", { value: "" }, ["(not set)"]),
        el("option", { value: "true" }, ["true"]), el("option", { value: "false" }, ["false"])]);
      get = function () { return control.value === "" ? {} : { value: control.value === "true" }; };
      set = function (v) { control.value = v === true ? "true" : v === false ? "false" : (p.required ? "false" : ""); };
    } else if (kind === "list" || kind === "json") {
      control = el("textarea", { id: id, rows: kind === "json" ? "3" : "2", spellcheck: "false" }, []);
      get = function () {
        var s = control.value.trim();
        if (!s) return {};
        if (kind === "json") {
          try { return { value: JSON.parse(s) }; } catch (e) { return { error: p.name + " is not valid JSON: " + e.message }; }
        }
        var items = [], bad = null;
        s.split(/\r?\n/).map(function (x) { return x.trim(); }).filter(Boolean).forEach(function (x) {
          var r = scalarValue(x, ps.items.enum ? "enum" : typeOf(ps.items), ps.items.enum);
          if (r.error) bad = bad || p.name + ": " + r.error; else items.push(r.value);
        });
        return bad ? { error: bad } : { value: items };
      };
      set = function (v) {
        if (v === undefined) control.value = "";
        else if (kind === "list" && Array.isArray(v)) control.value = v.map(function (x) { return typeof x === "string" ? x : JSON.stringify(x); }).join("\n");
        else control.value = kind === "json" ? pretty(v) : JSON.stringify(v);
      };
    } else {
      var attrs = { id: id, type: kind === "string" ? "text" : "number", spellcheck: "false", autocomplete: "off" };
      if (kind !== "string") attrs.step = kind === "integer" ? "1" : "any";
      control = el("input", attrs, []);
      get = function () {
        if (control.value === "") return {};
        return scalarValue(control.value, kind);
      };
      set = function (v) { control.value = v === undefined || v === null ? "" : String(v); };
    }
    control.setAttribute("data-arg", p.name);
    if (p.required) control.setAttribute("aria-required", "true");
    var label = el("label", { "for": id }, [el("code", {}, [p.name]), p.required ? el("span", { "class": "required", title: "required" }, [" *"]) : null,
      hint ? el("span", { "class": "muted" }, [" (" + hint + ")"]) : null]);
    var desc = [ps.title, ps.description].filter(function (s) { return typeof s === "string" && s; }).join(": ");
    var node = el("div", { "class": "field", "data-field": p.name, "data-kind": kind }, [label, control, desc ? el("small", { "class": "hint" }, [desc]) : null]);
    set(ps["default"]);
    return { name: p.name, required: p.required, node: node, get: get, set: set };
  }

  // scalarValue converts the text of a field to a value of the property's type.
  function scalarValue(s, kind, values) {
    if (kind === "number" || kind === "integer") {
      var n = Number(s);
      if (s.trim() === "" || isNaN(n)) return { error: JSON.stringify(s) + " is not a number" };
      if (kind === "integer" && !Number.isInteger(n)) return { error: JSON.stringify(s) + " is not an integer" };
      return { value: n };
    }
    if (kind === "boolean") {
      if (s === "true" || s === "false") return { value: s === "true" };
      return { error: JSON.stringify(s) + " is not true or false" };
    }
    if (kind === "enum") {
      var v = values.find(function (x) { return (typeof x === "string" ? x : JSON.stringify(x)) === s; });
      return v === undefined ? { error: JSON.stringify(s) + " is not one of the allowed values" } : { value: v };
    }
    return { value: s };
  }

  // collect reads the fields: the arguments object and what is wrong (empty required fields,
  // values that do not parse).
  function collect(fields) {
    var args = {}, errors = [];
    fields.forEach(function (f) {
      var r = f.get();
      if (r.error) errors.push(r.error + ".");
      else if ("value" in r) args[f.name] = r.value;
      else if (f.required) errors.push(f.name + " is required.");
    });
    return { args: args, errors: errors };
  }

  // --- calling the tool --------------------------------------------------------------------

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

  function call(tool, args, out) {
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
    out.removeAttribute("data-status");
    out.hidden = false;
    out.textContent = "Calling " + tool + "…";
    fetch(endpoint, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": version,
        "Mcp-Method": "tools/call",
        "Mcp-Name": /^[\x20-\x7e]*$/.test(tool) ? tool : b64(tool)
      },
      body: JSON.stringify(body)
    }).then(function (resp) {
      return resp.text().then(function (text) {
        var msg = null;
        var ct = resp.headers.get("Content-Type") || "";
        if (ct.indexOf("text/event-stream") === 0) msg = parseSSE(text);
        else { try { msg = JSON.parse(text); } catch (e) { msg = null; } }
        if (!msg) { showText(out, "error", "HTTP " + resp.status + ": " + text); return; }
        if (msg.error) { showRPCError(out, msg.error); return; }
        showResult(out, msg.result || {});
      });
    }).catch(function (e) {
      showText(out, "error", "Request failed: " + e.message);
    });
  }

  // --- showing the result --------------------------------------------------------------------

  function begin(out, status) {
    out.hidden = false;
    out.textContent = "";
    out.setAttribute("data-status", status);
  }

  function showText(out, status, text) {
    begin(out, status);
    out.appendChild(el("pre", { "class": "content-text" }, [text]));
  }

  function showRPCError(out, err) {
    begin(out, "error");
    out.appendChild(el("p", { "class": "error" }, ["The call failed: " + (err && err.message ? err.message : "error") + (err && err.code !== undefined ? " (JSON-RPC error " + err.code + ")" : "")]));
    out.appendChild(raw(err));
  }

  function showResult(out, result) {
    begin(out, result.isError ? "error" : "ok");
    if (result.isError) out.appendChild(el("p", { "class": "error" }, ["The tool reported an error:"]));
    (Array.isArray(result.content) ? result.content : []).forEach(function (block) {
      out.appendChild(contentBlock(block || {}));
    });
    if (result.structuredContent !== undefined) {
      out.appendChild(el("p", { "class": "muted" }, ["Structured content:"]));
      out.appendChild(el("pre", { "class": "content-structured" }, [pretty(result.structuredContent)]));
    }
    out.appendChild(raw(result));
  }

  function raw(v) {
    return el("details", { "class": "raw-result" }, [el("summary", {}, ["Raw result (JSON)"]), el("pre", { "class": "try-it-raw" }, [pretty(v)])]);
  }

  var base64 = /^[A-Za-z0-9+\/]*={0,2}$/;

  // dataURL is a data: URL of base64 data of a media type of the given kind ("image",
  // "audio"), or null when the type or the data are not what they should be.
  function dataURL(kind, mime, data) {
    if (typeof mime !== "string" || !new RegExp("^" + kind + "/[A-Za-z0-9.+-]+$").test(mime)) return null;
    if (typeof data !== "string" || !base64.test(data)) return null;
    return "data:" + mime + ";base64," + data;
  }

  function httpURL(s) {
    try {
      var u = new URL(s, location.href);
      return u.protocol === "http:" || u.protocol === "https:" ? u.href : null;
    } catch (e) { return null; }
  }

  function contentBlock(b) {
    switch (b.type) {
      case "text":
        return el("pre", { "class": "content-text" }, [String(b.text)]);
      case "image": {
        var src = dataURL("image", b.mimeType, b.data);
        if (!src) return el("p", { "class": "muted" }, ["An image of type " + JSON.stringify(b.mimeType) + " that this page does not show."]);
        return el("figure", { "class": "content-image" }, [el("img", { src: src, alt: "image result (" + b.mimeType + ")" }, []),
          el("figcaption", { "class": "muted" }, [b.mimeType])]);
      }
      case "audio": {
        // Played by downloading: inline <audio> needs media-src, which the page's
        // Content-Security-Policy does not grant.
        var href = dataURL("audio", b.mimeType, b.data);
        if (!href) return el("p", { "class": "muted" }, ["Audio of type " + JSON.stringify(b.mimeType) + " that this page does not offer."]);
        return el("p", { "class": "content-audio" }, [el("a", { href: href, download: "result." + b.mimeType.split("/")[1].replace(/[^a-z0-9]/gi, "") }, ["Download the audio"]),
          " (" + b.mimeType + ", " + Math.floor(b.data.length * 3 / 4) + " bytes)"]);
      }
      case "resource_link": {
        var link = httpURL(b.uri);
        var label = b.title || b.name || b.uri;
        return el("p", { "class": "content-link" }, ["Resource: ",
          link ? el("a", { href: link, rel: "noopener noreferrer", target: "_blank" }, [String(label)]) : el("code", {}, [String(b.uri)]),
          b.mimeType ? " (" + b.mimeType + ")" : null, link && label !== b.uri ? el("code", {}, [" " + b.uri]) : null]);
      }
      case "resource": {
        var r = b.resource || {};
        var parts = [el("p", { "class": "muted" }, ["Embedded resource " + (r.uri || "") + (r.mimeType ? " (" + r.mimeType + ")" : "")])];
        if (typeof r.text === "string") parts.push(el("pre", { "class": "content-text" }, [r.text]));
        else if (dataURL("image", r.mimeType, r.blob)) parts.push(el("img", { src: dataURL("image", r.mimeType, r.blob), alt: "embedded image " + (r.uri || "") }, []));
        else if (typeof r.blob === "string") parts.push(el("p", { "class": "muted" }, ["Binary content, " + Math.floor(r.blob.length * 3 / 4) + " bytes."]));
        return el("div", { "class": "content-resource" }, parts);
      }
      default:
        return el("pre", { "class": "content-other" }, [pretty(b)]);
    }
  }
})();

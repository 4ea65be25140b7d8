/**
 * The script the report page runs: reads the chart data (JSON in <script type="application/json">) and draws one
 * uPlot chart per spec. Kept as plain ES2017 in a string because it runs in the browser, not in Node; it builds the
 * page with createElement/textContent only, never innerHTML, so labels from the target stay text.
 * The data's shape is ChartPayload (chart-data.ts).
 */
export const CLIENT_SCRIPT = String.raw`(function () {
  "use strict";
  var payload = JSON.parse(document.getElementById("memleak-data").textContent);
  var root = document.getElementById("charts");

  // Same rule as formatBytes in src/base/units.ts: binary units, 3 significant digits.
  function formatBytes(b) {
    if (b === null || b === undefined || !isFinite(b)) return "\u2013";
    var sign = b < 0 ? "-" : "";
    var v = Math.abs(b);
    var units = ["B", "KiB", "MiB", "GiB", "TiB"];
    var i = 0;
    while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
    var digits = i === 0 || v >= 100 ? 0 : v >= 10 ? 1 : 2;
    return sign + v.toFixed(digits) + " " + units[i];
  }

  function two(n) { return (n < 10 ? "0" : "") + n; }

  function formatSeconds(s) {
    if (s === null || s === undefined || !isFinite(s)) return "\u2013";
    if (s < 60) return (Math.round(s * 10) / 10) + "s";
    var t = Math.round(s);
    if (t < 3600) return Math.floor(t / 60) + "m" + (t % 60 ? two(t % 60) + "s" : "");
    var m = Math.floor((t % 3600) / 60);
    return Math.floor(t / 3600) + "h" + (m ? two(m) + "m" : "");
  }

  // Tick steps people read at a glance: round seconds/minutes/hours, and sizes in powers of two, so that ticks that
  // cross a unit land on round values (512 MiB, 1 GiB, 1.5 GiB, not 1000 MiB, 1.46 GiB).
  var X_INCRS = [0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800];
  var Y_INCRS = [];
  for (var k = 0; k < 50; k++) Y_INCRS.push(Math.pow(2, k));
  // "16.0 MiB" → "16 MiB", "1.50 GiB" → "1.5 GiB" on the axis.
  function formatTick(b) { return formatBytes(b).replace(/(\.\d*?)0+ /, "$1 ").replace(". ", " "); }

  function rgba(hex, alpha) {
    var n = parseInt(hex.slice(1), 16);
    return "rgba(" + (n >> 16 & 255) + "," + (n >> 8 & 255) + "," + (n & 255) + "," + alpha + ")";
  }

  // Warm-up (left out of the trend fit) shaded under the lines; the moment the verdict settled as a line on top.
  function marksPlugin() {
    var px = window.devicePixelRatio || 1;
    function label(u, text, x, colour) {
      var ctx = u.ctx;
      ctx.save();
      ctx.font = (11 * px) + "px system-ui, sans-serif";
      ctx.fillStyle = colour;
      ctx.fillText(text, x + 4 * px, u.bbox.top + 12 * px);
      ctx.restore();
    }
    // Each test's start as a thin line; the tests that grew, failed or crashed shaded to their end, and named.
    var TEST_COLOURS = { leak: "rgba(225,87,89,0.18)", crashed: "rgba(225,87,89,0.3)", fragmentation: "rgba(237,201,72,0.25)", "one-off": "rgba(78,121,167,0.15)" };
    function drawTests(u) {
      if (!payload.tests) return;
      var ctx = u.ctx;
      ctx.save();
      payload.tests.forEach(function (t) {
        var x0 = u.valToPos(t.start, "x", true);
        var x1 = u.valToPos(t.end === undefined ? payload.duration : t.end, "x", true);
        if (t.shaded) {
          ctx.fillStyle = TEST_COLOURS[t.kind] || "rgba(128,128,128,0.15)";
          ctx.fillRect(x0, u.bbox.top, Math.max(1, x1 - x0), u.bbox.height);
        }
        ctx.strokeStyle = "rgba(0,0,0,0.18)";
        ctx.lineWidth = px;
        ctx.beginPath();
        ctx.moveTo(x0, u.bbox.top);
        ctx.lineTo(x0, u.bbox.top + u.bbox.height);
        ctx.stroke();
      });
      ctx.restore();
      // Named one row lower each, in four rows, so that neighbours' names do not print over each other.
      var row = 0;
      ctx.save();
      ctx.font = (11 * px) + "px system-ui, sans-serif";
      ctx.fillStyle = "#444";
      payload.tests.forEach(function (t) {
        if (!t.shaded) return;
        ctx.fillText(t.label + " (" + t.kind + ")", u.valToPos(t.start, "x", true) + 4 * px, u.bbox.top + (26 + 13 * (row++ % 4)) * px);
      });
      ctx.restore();
    }
    return {
      hooks: {
        drawClear: [function (u) {
          if (!(payload.warmup > 0)) return;
          var x0 = u.valToPos(payload.warmupFrom || 0, "x", true);
          var x1 = u.valToPos(payload.warmupFrom + payload.warmup, "x", true);
          u.ctx.save();
          u.ctx.fillStyle = "rgba(128,128,128,0.13)";
          u.ctx.fillRect(x0, u.bbox.top, Math.max(0, x1 - x0), u.bbox.height);
          u.ctx.restore();
          label(u, "warm-up", x0, "#666");
        }],
        draw: [drawTests, function (u) {
          if (payload.settledAt === undefined) return;
          var x = u.valToPos(payload.settledAt, "x", true);
          var ctx = u.ctx;
          ctx.save();
          ctx.strokeStyle = "#222";
          ctx.lineWidth = 1.5 * px;
          ctx.setLineDash([6 * px, 4 * px]);
          ctx.beginPath();
          ctx.moveTo(x, u.bbox.top);
          ctx.lineTo(x, u.bbox.top + u.bbox.height);
          ctx.stroke();
          ctx.restore();
          label(u, "verdict settled", x, "#222");
        }],
      },
    };
  }

  // The newest index with a value in series si: what the legend shows while the pointer is off the chart.
  function lastIndex(u, si) {
    var ys = u.data[si];
    for (var i = ys.length - 1; i >= 0; i--) if (ys[i] !== null && ys[i] !== undefined) return i;
    return null;
  }

  function legendValue(spec, s) {
    return function (u, v, si, idx) {
      if (idx === null || idx === undefined) {
        idx = lastIndex(u, si);
        if (idx === null) return "\u2013";
        v = u.data[si][idx];
      }
      if (v === null || v === undefined) return "\u2013";
      if (s.legendMinus !== undefined) {
        var below = u.data[s.legendMinus + 1][idx];
        if (below !== null && below !== undefined) return formatBytes(v - below);
      }
      return formatBytes(v);
    };
  }

  function chartOptions(spec, width, height) {
    var series = [{ label: "time", value: function (u, v) { return formatSeconds(v === null || v === undefined ? payload.duration : v); } }];
    var bands = [];
    spec.series.forEach(function (s, i) {
      var o = {
        label: s.label,
        stroke: s.color,
        width: s.width || 1.5,
        spanGaps: true,
        points: { show: false },
        value: legendValue(spec, s),
      };
      if (s.dash) o.dash = s.dash;
      if (s.hidden) o.show = false;
      if (s.fillTo !== undefined) {
        o.fill = rgba(s.color, 0.6);
        if (s.fillTo >= 0) bands.push({ series: [i + 1, s.fillTo + 1], fill: rgba(s.color, 0.6) });
      }
      series.push(o);
    });
    return {
      width: width,
      height: height,
      series: series,
      bands: bands,
      plugins: [marksPlugin()],
      cursor: { sync: { key: "memleak" } },
      scales: {
        x: { time: false, range: function () { return [0, Math.max(spec.xMax || payload.duration, 1e-3)]; } },
        y: { range: function (u, min, max) { return [0, max > 0 ? max * 1.08 : 1]; } },
      },
      axes: [
        { label: "time since start", labelSize: 22, incrs: X_INCRS, values: function (u, ticks) { return ticks.map(formatSeconds); } },
        { label: "memory", labelSize: 22, size: 72, incrs: Y_INCRS, values: function (u, ticks) { return ticks.map(formatTick); } },
      ],
    };
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  var KINDS = /^[a-z-]+$/;
  var charts = [];
  var groupTitles = { process: "Processes", tree: "Process tree", cgroup: "Memory cgroup", gpu: "GPU memory (per process and device)" };
  var lastGroup = null;
  var grid = null;

  payload.charts.forEach(function (spec) {
    if (spec.group !== lastGroup) {
      lastGroup = spec.group;
      var section = el("section", "chart-group");
      section.appendChild(el("h2", null, groupTitles[spec.group] || spec.group));
      grid = el("div", spec.group === "process" ? "chart-grid" : "chart-wide");
      section.appendChild(grid);
      root.appendChild(section);
    }
    var box = el("figure", "chart");
    box.id = "chart-" + spec.id;
    var head = el("figcaption", "chart-head");
    var title = el("span", "chart-title", spec.title);
    head.appendChild(title);
    if (spec.finding && KINDS.test(spec.finding.kind)) {
      var badge = el("span", "badge kind-" + spec.finding.kind, spec.finding.kind + (spec.finding.isVerdict ? " \u00b7 verdict" : ""));
      head.appendChild(badge);
      if (spec.finding.isVerdict) box.className += " is-verdict kind-" + spec.finding.kind;
    }
    box.appendChild(head);
    if (spec.detail) {
      var detail = el("div", "chart-detail", spec.detail);
      detail.title = spec.detail;
      box.appendChild(detail);
    }
    var plot = el("div", "chart-plot");
    plot.setAttribute("role", "img");
    plot.setAttribute("aria-label", spec.title);
    box.appendChild(plot);
    grid.appendChild(box);

    var data = [spec.xs].concat(spec.series.map(function (s) {
      return s.values || spec.xs.map(function () { return s.constant; });
    }));
    var height = spec.group === "process" ? 240 : 320;
    var u = new uPlot(chartOptions(spec, Math.max(200, plot.clientWidth), height), data, plot);
    charts.push({ u: u, plot: plot, height: height });
  });

  if (payload.omittedProcesses > 0) {
    root.appendChild(el("p", "note", payload.omittedProcesses + " more processes are not charted (only the " + payload.charts.filter(function (c) { return c.group === "process"; }).length + " most relevant are)."));
  }
  if (payload.charts.length === 0) root.appendChild(el("p", "note", "No samples to chart."));

  var pending = 0;
  window.addEventListener("resize", function () {
    clearTimeout(pending);
    pending = setTimeout(function () {
      charts.forEach(function (c) { c.u.setSize({ width: Math.max(200, c.plot.clientWidth), height: c.height }); });
    }, 100);
  });
})();
`;

(function () {
'use strict';
var LABEL_W = 150, AXIS_H = 24, LANE_H = 16, LANE_GAP = 4, GROUP_GAP = 10, OCC_H = 34,
    OCC_GAP = 8, MAX_TICKS = 40;

function column(obj, name, n, prefixSum) {
  var a = obj[name], out = new Float64Array(n), acc = 0, i;
  if (!a) return out;
  for (i = 0; i < n; i++) {
    if (prefixSum) { acc += a[i]; out[i] = acc; } else out[i] = a[i];
  }
  return out;
}

function fmtTime(ps) {
  var a = Math.abs(ps);
  if (a < 1000) return Math.round(ps) + ' ps';
  var units = ['ns', 'us', 'ms', 's'], v = ps / 1000, u = 0;
  while (u < 3 && Math.abs(v) >= 1000) { v /= 1000; u++; }
  return v.toFixed(3) + ' ' + units[u];
}
// A tick label in the unit of the step, with as many decimals as the step needs.
function fmtTick(ps, step) {
  var units = [[1e12, 's'], [1e9, 'ms'], [1e6, 'us'], [1e3, 'ns'], [1, 'ps']], u = units[4];
  for (var i = 0; i < units.length; i++) if (step >= units[i][0]) { u = units[i]; break; }
  var inUnit = step / u[0], dec = inUnit >= 1 ? 0 : Math.min(Math.ceil(-Math.log10(inUnit) - 1e-9), 6);
  return (ps / u[0]).toFixed(dec) + ' ' + u[1];
}
function fmtNs(ps) { return (ps / 1000).toFixed(3) + ' ns'; }
function fmtBytes(b) {
  if (b < 1024) return b + ' B';
  var units = ['KiB', 'MiB', 'GiB', 'TiB'], v = b / 1024, u = 0;
  while (u < 3 && v >= 1024) { v /= 1024; u++; }
  return v.toFixed(2) + ' ' + units[u];
}
function esc(s) {
  return String(s).replace(/[&<>"']/g, function (c) {
    return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c];
  });
}
// First index in sorted `a` (length n) whose value is > t.
function upper(a, n, t) {
  var lo = 0, hi = n;
  while (lo < hi) { var mid = (lo + hi) >> 1; if (a[mid] <= t) lo = mid + 1; else hi = mid; }
  return lo;
}

function Viewer(root, data) {
  this.root = root;
  this.data = data;
  this.total = Math.max(data.total, 1);
  this.canvas = root.querySelector('canvas');
  this.detailsEl = root.querySelector('.details');
  this.spanEl = root.querySelector('.span');
  this.countEl = root.querySelector('.matches');
  this.searchEl = root.querySelector('input[type=search]');
  this.criticalEl = root.querySelector('input.critical');
  this.critInfoEl = root.querySelector('.crit-info');
  this.prepare();
  this.t0 = 0;
  this.t1 = this.total;
  this.selected = -1;
  this.selectedSlice = null;
  this.matches = null;
  this.matchList = [];
  this.matchAt = -1;
  this.bind();
  this.resize();
}

Viewer.prototype.prepare = function () {
  var d = this.data, self = this, y = AXIS_H;
  this.kinds = d.kinds;
  // Instructions first: the engine lanes are views of them.
  var ins = d.ins, n = ins.count, I = {n: n};
  ['e', 'o', 'l', 'lc', 'x', 'w', 'ws', 'd', 'r', 'c1', 'sw', 'pw', 'dw', 'r0', 'r1', 'r2',
   'w0', 'w1', 'w2', 'fl', 'sk', 'si', 'st', 'th'].forEach(function (k) { I[k] = column(ins, k, n, false); });
  // pc, line, start and start cycle: deltas against the same engine's previous instruction.
  ['pc', 'ln', 's', 'c0'].forEach(function (k) {
    var raw = column(ins, k, n, false), acc = [0, 0, 0, 0, 0, 0, 0, 0];
    for (var i = 0; i < n; i++) { acc[I.e[i]] += raw[i]; raw[i] = acc[I.e[i]]; }
    I[k] = raw;
  });
  for (var j = 0; j < n; j++) I.r[j] += I.sw[j] + I.pw[j] + I.dw[j];
  this.ins = I;
  this.lanes = d.lanes.map(function (l, li) {
    var n2 = l.len, lane = {id: l.id, label: l.label, group: l.group, n: n2};
    if (l.det) {
      lane.detail = column(l, 'i', n2, true);
      lane.start = new Float64Array(n2);
      lane.dur = new Float64Array(n2);
      lane.kind = new Float64Array(n2);
      for (var k = 0; k < n2; k++) {
        var di = lane.detail[k];
        lane.start[k] = I.s[di];
        lane.dur[k] = I.d[di];
        lane.kind[k] = I.o[di];
      }
    } else {
      lane.detail = null;
      lane.start = column(l, 's', n2, true);
      lane.dur = column(l, 'd', n2, false);
      lane.kind = column(l, 'k', n2, false);
    }
    lane.count = column(l, 'n', n2, false);
    lane.bytes = column(l, 'b', n2, false);
    lane.cover = column(l, 'cv', n2, false);
    lane.launch = l.group === 'host' ? column(l, 'L', n2, false) : null;
    if (li > 0) y += d.lanes[li - 1].group !== l.group ? GROUP_GAP : LANE_GAP;
    lane.y = y;
    y += LANE_H;
    return lane;
  });
  this.occY = y + OCC_GAP + 12;
  this.height = this.occY + 2 * (OCC_H + OCC_GAP) + 4;
  this.laneOfEngine = {};
  this.slotOf = new Int32Array(n).fill(-1);
  this.lanes.forEach(function (lane, li) {
    if (lane.group === 'engine') self.laneOfEngine[lane.id] = li;
    if (lane.detail)
      for (var k = 0; k < lane.n; k++) self.slotOf[lane.detail[k]] = k;
  });
  var dm = d.dma, m = dm.count;
  this.dma = {n: m};
  ['q', 's', 'd', 'b', 'iss', 'c', 'l'].forEach(function (k) { self.dma[k] = column(dm, k, m, false); });
  this.critical = new Uint8Array(n);
  d.critical.forEach(function (i) { self.critical[i] = 1; });
  this.occ = ['sbuf', 'psum'].map(function (name) {
    var o = d.occupancy[name];
    var rt = column(o, 'rt', o.rt_n, true), lt = column(o, 'lt', o.lt_n, true);
    var rb = column(o, 'rb', o.rt_n, false), lb = column(o, 'lb', o.lt_n, false);
    // Scaled to the peak, not the capacity: kernels often use a small share of SBUF.
    var max = 0, i;
    for (i = 0; i < o.rt_n; i++) max = Math.max(max, rb[i]);
    for (i = 0; i < o.lt_n; i++) max = Math.max(max, lb[i]);
    return {name: name.toUpperCase(), cap: o.cap, peak: max, max: Math.max(max, 1), reserved: {t: rt, b: rb, n: o.rt_n},
            live: {t: lt, b: lb, n: o.lt_n}};
  });
};

Viewer.prototype.kindInfo = function (group, k) {
  var list = this.kinds[group] || [];
  return list[k] || ['?', '?', '#999999'];
};

Viewer.prototype.bind = function () {
  var self = this, c = this.canvas, drag = null;
  c.addEventListener('wheel', function (ev) {
    ev.preventDefault();
    var r = c.getBoundingClientRect(), x = ev.clientX - r.left;
    var factor = Math.exp(Math.max(-400, Math.min(400, ev.deltaY)) * 0.002);
    self.zoomAt(x, factor);
  }, {passive: false});
  c.addEventListener('mousedown', function (ev) {
    drag = {x: ev.clientX, y: ev.clientY, t0: self.t0, t1: self.t1, moved: false};
    c.classList.add('dragging');
    ev.preventDefault();
  });
  c.addEventListener('mousemove', function (ev) {
    if (drag) return;
    var r = c.getBoundingClientRect(), h = self.hit(ev.clientX - r.left, ev.clientY - r.top);
    c.title = h ? self.sliceTitle(h) : '';
  });
  window.addEventListener('mousemove', function (ev) {
    if (!drag) return;
    var dx = ev.clientX - drag.x;
    if (Math.abs(dx) > 3 || Math.abs(ev.clientY - drag.y) > 3) drag.moved = true;
    if (!drag.moved) return;
    var span = drag.t1 - drag.t0, perPx = span / self.plotW();
    self.setView(drag.t0 - dx * perPx, drag.t1 - dx * perPx);
  });
  window.addEventListener('mouseup', function (ev) {
    if (!drag) return;
    var wasClick = !drag.moved;
    drag = null;
    c.classList.remove('dragging');
    if (wasClick) {
      var r = c.getBoundingClientRect();
      self.pick(ev.clientX - r.left, ev.clientY - r.top);
    }
  });
  this.root.querySelector('button.reset').addEventListener('click', function () {
    self.setView(0, self.total);
  });
  this.root.querySelector('button.next').addEventListener('click', function () { self.nextMatch(1); });
  this.root.querySelector('button.prev').addEventListener('click', function () { self.nextMatch(-1); });
  this.searchEl.addEventListener('input', function () { self.search(self.searchEl.value); });
  this.searchEl.addEventListener('keydown', function (ev) {
    if (ev.key === 'Enter') self.nextMatch(ev.shiftKey ? -1 : 1);
  });
  // Keys on the focused canvas: + and - zoom around the middle, arrows pan, 0 resets.
  c.addEventListener('keydown', function (ev) {
    var mid = LABEL_W + self.plotW() / 2, span = self.t1 - self.t0;
    if (ev.key === '+' || ev.key === '=') self.zoomAt(mid, 0.5);
    else if (ev.key === '-') self.zoomAt(mid, 2);
    else if (ev.key === 'ArrowLeft') self.setView(self.t0 - span / 10, self.t1 - span / 10);
    else if (ev.key === 'ArrowRight') self.setView(self.t0 + span / 10, self.t1 + span / 10);
    else if (ev.key === '0') self.setView(0, self.total);
    else return;
    ev.preventDefault();
  });
  this.criticalEl.addEventListener('change', function () {
    self.critInfoEl.textContent = self.criticalEl.checked ? self.criticalSummary() : '';
    self.draw();
  });
  this.detailsEl.addEventListener('click', function (ev) {
    var a = ev.target.closest('a[data-ins]');
    if (a) { self.select(+a.getAttribute('data-ins'), true); return; }
    a = ev.target.closest('a[data-dma]');
    if (a) self.showDma(+a.getAttribute('data-dma'), true);
  });
};

Viewer.prototype.plotW = function () { return Math.max(this.width - LABEL_W - 10, 50); };
Viewer.prototype.xOf = function (t) { return LABEL_W + (t - this.t0) * this.plotW() / (this.t1 - this.t0); };
Viewer.prototype.tOf = function (x) { return this.t0 + (x - LABEL_W) * (this.t1 - this.t0) / this.plotW(); };

// The narrowest view: 10 ps, or wider where doubles cannot tell 10 ps apart (a forged
// trace's total near 2^64 ps).
Viewer.prototype.minSpan = function () { return Math.max(10, this.total * 1e-12); };

Viewer.prototype.setView = function (t0, t1) {
  var span = Math.min(Math.max(t1 - t0, this.minSpan()), this.total);
  if (t0 < 0) t0 = 0;
  if (t0 + span > this.total) t0 = this.total - span;
  this.t0 = t0;
  this.t1 = t0 + span;
  this.draw();
};

Viewer.prototype.zoomAt = function (x, factor) {
  var px = Math.min(Math.max(x, LABEL_W), LABEL_W + this.plotW());
  var t = this.tOf(px), span = (this.t1 - this.t0) * factor;
  span = Math.min(Math.max(span, this.minSpan()), this.total);
  var frac = (px - LABEL_W) / this.plotW();
  this.setView(t - frac * span, t - frac * span + span);
};

Viewer.prototype.resize = function () {
  var w = Math.max(this.root.clientWidth - 14, 300), dpr = window.devicePixelRatio || 1;
  this.width = w;
  this.canvas.width = Math.round(w * dpr);
  this.canvas.height = Math.round(this.height * dpr);
  this.canvas.style.height = this.height + 'px';
  this.dpr = dpr;
  this.draw();
};

function niceStep(raw) {
  var mag = Math.pow(10, Math.floor(Math.log10(raw))), steps = [1, 2, 5, 10];
  for (var i = 0; i < steps.length; i++) if (steps[i] * mag >= raw) return steps[i] * mag;
  return 10 * mag;
}

Viewer.prototype.draw = function () {
  var ctx = this.canvas.getContext('2d'), self = this, W = this.width, plotW = this.plotW();
  ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
  ctx.clearRect(0, 0, W, this.height);
  ctx.font = '11px system-ui, sans-serif';
  var t0 = this.t0, t1 = this.t1, scale = plotW / (t1 - t0);
  // Axis: at most MAX_TICKS round-numbered ticks whatever the span.
  var step = niceStep((t1 - t0) / 10), first = Math.ceil(t0 / step);
  ctx.fillStyle = '#555';
  ctx.textAlign = 'center';
  for (var k = 0; k < MAX_TICKS; k++) {
    var t = (first + k) * step;
    if (t > t1) break;
    var x = LABEL_W + (t - t0) * scale;
    if (x < LABEL_W) continue;
    ctx.fillStyle = 'rgba(0,0,0,0.08)';
    ctx.fillRect(Math.round(x), AXIS_H - 6, 1, this.occY - AXIS_H + 2 * (OCC_H + OCC_GAP));
    ctx.fillStyle = '#555';
    ctx.fillText(fmtTick(t, step), x, AXIS_H - 10);
  }
  var crit = this.criticalEl.checked, matches = this.matches;
  ctx.textAlign = 'right';
  this.lanes.forEach(function (lane) {
    ctx.fillStyle = '#333';
    ctx.fillText(lane.label, LABEL_W - 8, lane.y + LANE_H - 4);
    ctx.fillStyle = '#f3f4f6';
    ctx.fillRect(LABEL_W, lane.y, plotW, LANE_H);
    self.drawLane(ctx, lane, scale, crit, matches);
  });
  if (crit) this.drawCriticalDma(ctx, scale);
  this.drawOccupancy(ctx, scale);
  if (this.selectedSlice) {
    var s = this.selectedSlice, ln = this.lanes[s.lane];
    var sx0 = LABEL_W + (ln.start[s.k] - t0) * scale, sx1 = sx0 + ln.dur[s.k] * scale;
    ctx.strokeStyle = '#000';
    ctx.lineWidth = 2;
    ctx.strokeRect(Math.max(sx0, LABEL_W) - 1, ln.y - 1, Math.max(Math.min(sx1, LABEL_W + plotW) - Math.max(sx0, LABEL_W), 1) + 2, LANE_H + 2);
  }
  this.spanEl.textContent = 'showing ' + fmtTime(t0) + ' .. ' + fmtTime(t1) + ' (' + fmtTime(t1 - t0) + ')';
};

// One lane: slices a pixel or wider as themselves; narrower ones summed per pixel column,
// coloured by the kind that took most of the column and as tall as the share in use.
Viewer.prototype.drawLane = function (ctx, lane, scale, crit, matches) {
  var t0 = this.t0, t1 = this.t1, n = lane.n, plotRight = LABEL_W + this.plotW();
  var i = Math.max(upper(lane.start, n, t0) - 1, 0);
  var colBusy = 0, colX = -1, colKind = 0, colKindBusy = 0, colHit = false, colCrit = false, self = this;
  var dimmed = crit || matches !== null;
  function colour(kind, strong) {
    var c = self.kindInfo(lane.group, kind)[2];
    ctx.globalAlpha = dimmed && !strong ? 0.18 : 1;
    ctx.fillStyle = c;
  }
  function flush() {
    if (colX < 0) return;
    var share = Math.min(colBusy * scale, 1), h = Math.max(Math.ceil(share * 4) / 4, 0.25) * LANE_H;
    colour(colKind, colHit || colCrit);
    ctx.fillRect(colX, lane.y + LANE_H - h, 1, h);
    if (colCrit) { ctx.globalAlpha = 1; ctx.fillStyle = '#d62728'; ctx.fillRect(colX, lane.y - 3, 1, 3); }
    if (colHit) { ctx.globalAlpha = 1; ctx.fillStyle = '#111'; ctx.fillRect(colX, lane.y + LANE_H, 1, 2); }
    colX = -1; colBusy = 0; colKindBusy = 0; colHit = false; colCrit = false;
  }
  for (; i < n; i++) {
    var s = lane.start[i];
    if (s > t1) break;
    var e = s + lane.dur[i];
    if (e < t0) continue;
    var x0 = LABEL_W + (Math.max(s, t0) - t0) * scale, x1 = LABEL_W + (Math.min(e, t1) - t0) * scale;
    var det = lane.detail ? lane.detail[i] : -1;
    var hit = matches !== null && det >= 0 && matches[det] === 1;
    var isCrit = crit && det >= 0 && this.critical[det] === 1;
    if (x1 - x0 >= 1) {
      flush();
      colour(lane.kind[i], hit || isCrit);
      var h = lane.cover[i] ? LANE_H * (4 - lane.cover[i]) / 4 : LANE_H;
      ctx.fillRect(x0, lane.y + LANE_H - h, Math.min(x1, plotRight) - x0, h);
      if (isCrit) { ctx.globalAlpha = 1; ctx.fillStyle = '#d62728'; ctx.fillRect(x0, lane.y - 3, x1 - x0, 3); }
      if (hit) { ctx.globalAlpha = 1; ctx.fillStyle = '#111'; ctx.fillRect(x0, lane.y + LANE_H, x1 - x0, 2); }
      continue;
    }
    var col = Math.floor((x0 + x1) / 2);
    if (col !== colX) { flush(); colX = col; }
    var busy = lane.dur[i];
    colBusy += lane.cover[i] ? busy * (4 - lane.cover[i]) / 4 : busy;
    if (busy >= colKindBusy) { colKindBusy = busy; colKind = lane.kind[i]; }
    colHit = colHit || hit;
    colCrit = colCrit || isCrit;
  }
  flush();
  ctx.globalAlpha = 1;
  if (lane.id === 'device' && lane.launch && !this.data.fitted) this.drawLaunchNames(ctx, lane, scale);
};

// The device lane names each launch's op where it fits (as the static timeline does).
Viewer.prototype.drawLaunchNames = function (ctx, lane, scale) {
  var i = Math.max(upper(lane.start, lane.n, this.t0) - 1, 0), right = LABEL_W + this.plotW();
  ctx.textAlign = 'center';
  ctx.fillStyle = '#fff';
  for (; i < lane.n && lane.start[i] <= this.t1; i++) {
    var x0 = Math.max(LABEL_W + (lane.start[i] - this.t0) * scale, LABEL_W);
    var x1 = Math.min(LABEL_W + (lane.start[i] + lane.dur[i] - this.t0) * scale, right);
    var L = lane.launch[i], text = this.data.ops[L] || this.data.launches[L];
    if (x1 - x0 > ctx.measureText(text).width + 6) ctx.fillText(text, (x0 + x1) / 2, lane.y + LANE_H - 4);
  }
  ctx.textAlign = 'right';
};

Viewer.prototype.drawCriticalDma = function (ctx, scale) {
  var d = this.dma, q = this.data.queues;
  for (var i = 0; i < d.n; i++) {
    if (!d.c[i]) continue;
    var lane = this.laneById('dma:' + q[d.q[i]]);
    if (!lane) continue;
    var x0 = LABEL_W + (d.s[i] - this.t0) * scale, x1 = x0 + Math.max(d.d[i] * scale, 1);
    if (x1 < LABEL_W || x0 > LABEL_W + this.plotW()) continue;
    ctx.fillStyle = '#d62728';
    ctx.fillRect(Math.max(x0, LABEL_W), lane.y - 3, Math.min(x1, LABEL_W + this.plotW()) - Math.max(x0, LABEL_W), 3);
  }
};

// "12 instructions and 3 DMA pieces, busy 4.2 us of 10.0 us": the path's own time
// against the span from its first start to its last end.
Viewer.prototype.criticalSummary = function () {
  var path = this.data.critical, I = this.ins, busy = 0, first = Infinity, last = 0, pieces = 0, i;
  if (!path.length) return this.data.fitted ? 'not available (no instruction details)' : 'empty';
  for (i = 0; i < path.length; i++) {
    var k = path[i];
    busy += I.d[k];
    first = Math.min(first, I.s[k]);
    last = Math.max(last, I.s[k] + I.d[k]);
  }
  for (i = 0; i < this.dma.n; i++) {
    if (!this.dma.c[i]) continue;
    pieces++;
    busy += this.dma.d[i];
    last = Math.max(last, this.dma.s[i] + this.dma.d[i]);
  }
  return path.length + ' instructions and ' + pieces + ' DMA pieces, busy ' + fmtTime(busy) +
         ' of ' + fmtTime(last - first);
};

Viewer.prototype.laneById = function (id) {
  for (var i = 0; i < this.lanes.length; i++) if (this.lanes[i].id === id) return this.lanes[i];
  return null;
};

// Occupancy strips: reserved (every allocation of the running kernel) light, live
// (allocations between first and last use) dark, against the target's capacity.
Viewer.prototype.drawOccupancy = function (ctx, scale) {
  var self = this, plotW = this.plotW();
  this.occ.forEach(function (o, oi) {
    var y = self.occY + oi * (OCC_H + OCC_GAP);
    ctx.fillStyle = '#f3f4f6';
    ctx.fillRect(LABEL_W, y, plotW, OCC_H);
    ctx.fillStyle = '#333';
    ctx.textAlign = 'right';
    ctx.fillText(o.name + ' occupancy', LABEL_W - 8, y + 12);
    ctx.fillStyle = '#777';
    ctx.fillText('peak ' + fmtBytes(o.peak) + (o.cap ? ' (' + (100 * o.peak / o.cap).toFixed(1) + '%)' : ''),
                 LABEL_W - 8, y + 26);
    [['reserved', '#c6d4e6'], ['live', '#3f6fa8']].forEach(function (p) {
      var st = o[p[0]];
      if (!st.n) return;
      ctx.fillStyle = p[1];
      var i = Math.max(upper(st.t, st.n, self.t0) - 1, 0);
      // Steps narrower than a pixel: the column shows the largest level in it.
      var colX = -1, colMax = 0;
      for (; i < st.n; i++) {
        var a = Math.max(st.t[i], self.t0), b = i + 1 < st.n ? Math.min(st.t[i + 1], self.t1) : self.t1;
        if (st.t[i] > self.t1) break;
        var x0 = LABEL_W + (a - self.t0) * scale, x1 = LABEL_W + (b - self.t0) * scale;
        var h = OCC_H * st.b[i] / o.max;
        if (x1 - x0 >= 1) {
          if (colX >= 0) { ctx.fillRect(colX, y + OCC_H - colMax, 1, colMax); colX = -1; colMax = 0; }
          ctx.fillRect(x0, y + OCC_H - h, x1 - x0, h);
        } else {
          var cx = Math.floor(x0);
          if (cx !== colX && colX >= 0) { ctx.fillRect(colX, y + OCC_H - colMax, 1, colMax); colMax = 0; }
          colX = cx;
          colMax = Math.max(colMax, h);
        }
      }
      if (colX >= 0) ctx.fillRect(colX, y + OCC_H - colMax, 1, colMax);
    });
  });
  ctx.textAlign = 'center';
};

// What is at canvas point (x, y): a lane slice (the nearest within 3 px) or nothing.
Viewer.prototype.hit = function (x, y) {
  if (x < LABEL_W) return null;
  for (var li = 0; li < this.lanes.length; li++) {
    var lane = this.lanes[li];
    if (y < lane.y - 2 || y > lane.y + LANE_H + 2) continue;
    var t = this.tOf(x), tol = 3 * (this.t1 - this.t0) / this.plotW();
    var i = upper(lane.start, lane.n, t) - 1, best = -1, bestDist = Infinity;
    for (var k = Math.max(i - 2, 0); k < Math.min(i + 3, lane.n); k++) {
      var s = lane.start[k], e = s + lane.dur[k];
      var dist = t < s ? s - t : t > e ? t - e : 0;
      if (dist < bestDist) { bestDist = dist; best = k; }
    }
    if (best >= 0 && bestDist <= tol) return {lane: li, k: best};
    return null;
  }
  return null;
};

// What a lane's slices count: instructions, DMA pieces or launches.
Viewer.prototype.unitOf = function (lane) {
  return lane.group === 'dma' ? 'pieces' : lane.group === 'engine' ? 'instructions' : 'launches';
};

// The canvas' tooltip: what the slice under the mouse is.
Viewer.prototype.sliceTitle = function (h) {
  var lane = this.lanes[h.lane], k = h.k, s = lane.start[k], d = lane.dur[k];
  var info = this.kindInfo(lane.group, lane.kind[k]), what = info[1];
  if (lane.detail) {
    var i = lane.detail[k];
    what = this.data.engines[this.ins.e[i]] + ' #' + this.ins.pc[i] + ' ' + info[0];
  } else if (lane.count[k]) {
    what += ' (' + (lane.count[k] + 1) + ' ' + this.unitOf(lane) + (lane.group === 'dma' ? ', ' + fmtBytes(lane.bytes[k]) : '') + ')';
  }
  return what + ': ' + fmtTime(d) + ' at ' + fmtTime(s);
};

Viewer.prototype.pick = function (x, y) {
  var h = this.hit(x, y);
  if (!h) return;
  var lane = this.lanes[h.lane];
  if (lane.detail && lane.detail[h.k] >= 0) { this.select(lane.detail[h.k], false); return; }
  this.selected = -1;
  this.selectedSlice = h;
  this.showSlice(lane, h.k);
  this.draw();
};

// Instruction i selected; `reveal` moves the view to it when it is off screen or tiny.
Viewer.prototype.select = function (i, reveal) {
  var I = this.ins, lane = this.laneOfEngine[this.data.engines[I.e[i]]];
  this.selected = i;
  this.selectedSlice = lane !== undefined && this.slotOf[i] >= 0 ? {lane: lane, k: this.slotOf[i]} : null;
  if (reveal) {
    var s = I.s[i], e = s + I.d[i], span = this.t1 - this.t0;
    if (e - s > span / 2 || (e - s) * this.plotW() / span < 4) span = Math.max((e - s) * 20, 1000);
    if (s < this.t0 || e > this.t1 || span !== this.t1 - this.t0)
      this.t0 = (s + e) / 2 - span / 2, this.t1 = this.t0 + span;
    this.setView(this.t0, this.t1);
  }
  this.showInstruction(i);
  this.draw();
};

Viewer.prototype.insLink = function (i) {
  var I = this.ins, name = this.kindInfo('engine', I.o[i])[0];
  return '<a data-ins="' + i + '">' + esc(this.data.engines[I.e[i]] + ' #' + I.pc[i] + ' ' + name) + '</a>';
};

Viewer.prototype.showInstruction = function (i) {
  var I = this.ins, S = this.data.strings, rows = [], self = this;
  var start = I.s[i], end = start + I.d[i];
  function row(k, v) { rows.push('<tr><td>' + esc(k) + '</td><td>' + v + '</td></tr>'); }
  row('instruction', esc(this.data.engines[I.e[i]] + ' #' + I.pc[i] +
      (this.data.launches.length > 1 ? ' in launch ' + I.l[i] + ' (' + this.data.launches[I.l[i]] + ')' : '')));
  row('opcode', '<b class="d-opcode">' + esc(this.kindInfo('engine', I.o[i])[0]) + '</b>');
  row('operands', '<code class="d-operands">' + esc(S[I.x[i]]) + '</code>');
  if (I.lc[i]) row('python line', '<span class="d-loc">' + esc(S[I.lc[i]]) + '</span>');
  row(I.lc[i] ? 'assembly line' : 'source line', '<span class="d-line">' + (I.ln[i] ? I.ln[i] : 'unknown') + '</span>');
  row('start / end', '<span class="d-start">' + fmtNs(start) + '</span> .. <span class="d-end">' + fmtNs(end) +
      '</span> (' + fmtTime(end - start) + ')');
  row('cycles', '<span class="d-cycles">' + I.c0[i] + ' .. ' + (I.c0[i] + I.c1[i]) + '</span> (' + I.c1[i] + ' cycles)');
  if (I.th[i]) row('throttle', '<span class="d-throttle">' + fmtTime(I.th[i]) + ' of it the Tensor throttle (the PE array below full rate)</span>');
  row('ready', fmtNs(start - I.r[i]) + '; waited ' + fmtTime(I.r[i]) + ': semaphores ' + fmtTime(I.sw[i]) +
      ', port ' + fmtTime(I.pw[i]) + ', DMA queue ' + fmtTime(I.dw[i]));
  var spaces = ['HBM', 'SBUF', 'PSUM'], rd = [], wr = [];
  for (var s = 0; s < 3; s++) {
    if (I['r' + s][i]) rd.push(spaces[s] + ' ' + fmtBytes(I['r' + s][i]));
    if (I['w' + s][i]) wr.push(spaces[s] + ' ' + fmtBytes(I['w' + s][i]));
  }
  row('bytes', '<span class="d-bytes">read ' + (rd.join(', ') || '0 B') + '; written ' + (wr.join(', ') || '0 B') + '</span>');
  if (I.fl[i]) row('flops', String(I.fl[i]));
  row('semaphore waits', esc(S[I.w[i]] || 'none'));
  if (I.ws[i] || I.sw[i]) {
    var who = 'not found in the trace';
    if (I.sk[i] === 1) who = this.insLink(I.si[i]);
    if (I.sk[i] === 2) {
      var d = I.si[i];
      who = '<a data-dma="' + d + '">DMA queue ' + esc(this.data.queues[this.dma.q[d]]) + ' piece of ' +
            fmtBytes(this.dma.b[d]) + '</a>' + (this.dma.iss[d] >= 0 ? ', issued by ' + this.insLink(this.dma.iss[d]) : '');
    }
    row('waited longest on', '<span class="d-signal">' + esc(S[I.ws[i]] || '?') + ' for ' + fmtTime(I.sw[i]) +
        ', signalled by ' + who + (I.sk[i] ? ' at ' + fmtNs(start - I.st[i]) : '') + '</span>');
  }
  row('critical path', this.critical[i] ? 'on it' : 'no');
  this.detailsEl.innerHTML = '<table class="d-table" data-ins="' + i + '">' + rows.join('') + '</table>';
};

Viewer.prototype.showDma = function (d, reveal) {
  var D = this.dma;
  var rows = '<tr><td>DMA piece</td><td>queue ' + esc(this.data.queues[D.q[d]]) + '</td></tr>' +
      '<tr><td>start / end</td><td>' + fmtNs(D.s[d]) + ' .. ' + fmtNs(D.s[d] + D.d[d]) + '</td></tr>' +
      '<tr><td>bytes</td><td>' + fmtBytes(D.b[d]) + '</td></tr>' +
      (D.iss[d] >= 0 ? '<tr><td>issued by</td><td>' + this.insLink(D.iss[d]) + '</td></tr>' : '') +
      '<tr><td>critical path</td><td>' + (D.c[d] ? 'on it' : 'no') + '</td></tr>';
  this.detailsEl.innerHTML = '<table class="d-table">' + rows + '</table>';
  if (reveal) {
    var span = Math.max(D.d[d] * 20, 1000);
    this.setView(D.s[d] + D.d[d] / 2 - span / 2, D.s[d] + D.d[d] / 2 + span / 2);
  }
};

Viewer.prototype.showSlice = function (lane, k) {
  var info = this.kindInfo(lane.group, lane.kind[k]), s = lane.start[k], e = s + lane.dur[k];
  var rows = '<tr><td>lane</td><td>' + esc(lane.label) + '</td></tr><tr><td>what</td><td>' + esc(info[1]) +
      (lane.count[k] ? ' (' + (lane.count[k] + 1) + ' ' + this.unitOf(lane) + ')' : '') + '</td></tr>' +
      '<tr><td>start / end</td><td>' + fmtNs(s) + ' .. ' + fmtNs(e) + ' (' + fmtTime(e - s) + ')</td></tr>';
  if (lane.launch && !this.data.fitted) {
    var L = lane.launch[k];
    rows = '<tr><td>launch</td><td>' + L + ': ' + esc(this.data.launches[L]) +
           (this.data.ops[L] ? ' (' + esc(this.data.ops[L]) + ')' : '') + '</td></tr>' + rows;
  }
  if (lane.group === 'dma')
    rows += '<tr><td>bytes</td><td>' + fmtBytes(lane.bytes[k]) + (e > s ? ' (' + (lane.bytes[k] * 1000 / (e - s)).toFixed(1) + ' GB/s)' : '') + '</td></tr>';
  if (this.data.fitted)
    rows += '<tr><td>note</td><td>this run has more slices than the viewer embeds one by one: lanes are summed per 1/4096 of the run, without instruction details</td></tr>';
  this.detailsEl.innerHTML = '<table class="d-table">' + rows + '</table>';
};

// Matches: opcode names containing the text; "line N" / ":N" / "N": assembly line N;
// "kernel.py:42" (any end of "path:line", with a character before the colon): the
// instructions traced from that Python line.
Viewer.prototype.search = function (text) {
  var q = text.trim().toLowerCase(), I = this.ins, n = I.n, S = this.data.strings;
  this.matchList = [];
  this.matchAt = -1;
  if (!q) { this.matches = null; this.countEl.textContent = ''; this.draw(); return; }
  var m = new Uint8Array(n), line = /^(?:line\s*|:)?(\d+)$/.exec(q), ops = {}, locs = null;
  if (/.:\d+$/.test(q)) {
    locs = {};
    S.forEach(function (s, k) {
      var t = s.toLowerCase();
      if (s && t.length >= q.length && t.lastIndexOf(q) === t.length - q.length && /:\d+$/.test(s)) locs[k] = 1;
    });
  }
  (this.kinds.engine || []).forEach(function (k, i) { if (k[0].indexOf(q) >= 0) ops[i] = 1; });
  for (var i = 0; i < n; i++) {
    var hit = locs ? locs[I.lc[i]] === 1 : line ? I.ln[i] === +line[1] : ops[I.o[i]] === 1;
    if (hit) { m[i] = 1; this.matchList.push(i); }
  }
  var I2 = this.ins;
  this.matchList.sort(function (a, b) { return I2.s[a] - I2.s[b]; });
  this.matches = m;
  this.countEl.textContent = this.matchList.length + ' match' + (this.matchList.length === 1 ? '' : 'es');
  this.draw();
};

Viewer.prototype.nextMatch = function (dir) {
  var n = this.matchList.length;
  if (!n) return;
  this.matchAt = ((this.matchAt + dir) % n + n) % n;
  this.countEl.textContent = (this.matchAt + 1) + ' of ' + n + ' matches';
  this.select(this.matchList[this.matchAt], true);
};

// Where instruction i is drawn, in page coordinates (for tests and links).
Viewer.prototype.locate = function (i) {
  var slot = this.slotOf[i], lane = this.lanes[this.laneOfEngine[this.data.engines[this.ins.e[i]]]];
  if (slot < 0 || !lane) return null;
  var r = this.canvas.getBoundingClientRect(), s = Math.max(lane.start[slot], this.t0);
  var e = Math.min(lane.start[slot] + lane.dur[slot], this.t1);
  return {x: r.left + window.scrollX + (this.xOf(s) + this.xOf(e)) / 2,
          y: r.top + window.scrollY + lane.y + LANE_H / 2};
};

var viewers = [];
var begin = performance.now();
document.querySelectorAll('.viewer[data-run]').forEach(function (root) {
  var t = performance.now();
  var el = document.getElementById('viewer-data-' + root.getAttribute('data-run'));
  var v = new Viewer(root, JSON.parse(el.textContent));
  root.setAttribute('data-render-ms', (performance.now() - t).toFixed(1));
  viewers.push(v);
});
// Redrawn at the new width before the next frame (ResizeObserver runs before paint).
var observer = new ResizeObserver(function () {
  viewers.forEach(function (v) { if (v.root.clientWidth - 14 !== v.width) v.resize(); });
});
viewers.forEach(function (v) { observer.observe(v.root); });
window.neuronsimViewers = viewers;
// A line number of a source view searches its run's viewer for that line's instructions.
document.querySelectorAll('.source tr.hot a.src-line').forEach(function (a) {
  a.addEventListener('click', function () {
    var loc = a.closest('tr').getAttribute('data-loc');
    var run = a.closest('.source').getAttribute('data-run');
    viewers.forEach(function (v) {
      if (v.root.getAttribute('data-run') !== run) return;
      var box = v.root.querySelector('input[type=search]');
      box.value = loc;
      v.search(loc);
      v.nextMatch(1);
    });
  });
});
document.body.setAttribute('data-viewer-ms', (performance.now() - begin).toFixed(1));
document.body.setAttribute('data-viewer-ready-ms', performance.now().toFixed(1));
// The first frame after drawing: what a user waits for.
requestAnimationFrame(function () {
  setTimeout(function () {
    document.body.setAttribute('data-viewer-painted-ms', performance.now().toFixed(1));
  }, 0);
});
})();

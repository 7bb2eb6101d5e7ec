// SPDX-License-Identifier: GPL-2.0-or-later
// report.js - the script of roce-analyze --html pages (compiled into the tool; the page's
// Content-Security-Policy allows exactly this script by its SHA-256).
//
// Reads the data block (the JSON script element with id "data"), draws the charts as
// plain SVG and the tables as DOM.  Every string from the data goes into the page through
// textContent or setAttribute of a fixed attribute name: never as markup.  Charts share one
// time axis: wheel zooms around the pointer, drag pans, double-click (or "Reset zoom")
// shows everything; hovering shows the values under the pointer.
'use strict';
(function () {
	const D = JSON.parse(document.getElementById('data').textContent);
	const app = document.getElementById('app');
	const SVGNS = 'http://www.w3.org/2000/svg';
	const PALETTE = ['#2f6fd6', '#e08a00', '#2a9d5c', '#9b4dca', '#d0342c', '#16a2b8',
		'#8c6d1f', '#e05fa0', '#5c6b7a', '#7bb32e'];

	// ---- DOM helpers -------------------------------------------------------------
	function el(tag, cls, text) {
		const e = document.createElement(tag);
		if (cls)
			e.className = cls;
		if (text !== undefined && text !== null)
			e.textContent = String(text);
		return e;
	}
	function sv(tag, attrs, text) {
		const e = document.createElementNS(SVGNS, tag);
		for (const k of Object.keys(attrs || {}))
			e.setAttribute(k, attrs[k]);
		if (text !== undefined)
			e.textContent = String(text);
		return e;
	}

	// ---- formatting --------------------------------------------------------------
	const nf = new Intl.NumberFormat('en-US');
	function fInt(v) { return v === null || v === undefined ? '-' : nf.format(v); }
	function fNum(v, d) {
		if (v === null || v === undefined || !isFinite(v))
			return '-';
		const a = Math.abs(v);
		if (a >= 1e9) return (v / 1e9).toFixed(2) + 'G';
		if (a >= 1e6) return (v / 1e6).toFixed(2) + 'M';
		if (a >= 1e4) return (v / 1e3).toFixed(1) + 'k';
		return Number(v.toFixed(d === undefined ? 2 : d)).toString();
	}
	function fBytes(b) {
		const u = ['B', 'kB', 'MB', 'GB', 'TB'];
		let i = 0;
		while (b >= 1000 && i < u.length - 1) { b /= 1000; i++; }
		return (i ? b.toFixed(2) : String(b)) + ' ' + u[i];
	}
	function fTime(ns) {
		const a = Math.abs(ns);
		if (a >= 1e9) return (ns / 1e9).toFixed(a >= 1e11 ? 1 : 3) + ' s';
		if (a >= 1e6) return (ns / 1e6).toFixed(3) + ' ms';
		if (a >= 1e3) return (ns / 1e3).toFixed(3) + ' \u00b5s';
		return ns.toFixed(0) + ' ns';
	}
	function hex6(v) { return '0x' + Number(v).toString(16).padStart(6, '0'); }
	function wsFilter(frame) { return 'frame.number == ' + frame; }

	// ---- time axis shared by every chart -------------------------------------------
	const G = D.grid;
	const binNs = G.bin_ns;
	const origin = D.origin_offset_ns;
	let full0 = origin, full1 = origin + Math.max(1, G.nbins) * binNs;
	for (const tl of D.timelines)
		for (const p of tl.pauses) {
			full0 = Math.min(full0, p[0]);
			full1 = Math.max(full1, p[1]);
		}
	const view = { a: full0, b: full1 };
	const charts = [];
	let pending = false;

	function redrawAll() {
		if (pending)
			return;
		pending = true;
		requestAnimationFrame(function () {
			pending = false;
			for (const c of charts)
				c.draw();
			zoomLabel.textContent = 'Showing ' + fTime(view.a) + ' \u2013 ' + fTime(view.b) +
				' (bin ' + fTime(binNs) + ')';
		});
	}
	function setView(a, b) {
		const minSpan = Math.min(1000, full1 - full0);
		let span = Math.max(minSpan, Math.min(b - a, full1 - full0));
		if (a < full0) a = full0;
		if (a + span > full1) a = full1 - span;
		view.a = a;
		view.b = a + span;
		redrawAll();
	}
	function binOf(t) { return Math.floor((t - origin) / binNs); }
	function visibleBins() {
		return [Math.max(0, binOf(view.a)), Math.min(G.nbins - 1, binOf(view.b))];
	}

	function niceTicks(a, b, n) {
		const span = b - a;
		if (!(span > 0))
			return [a];
		const s0 = span / n, mag = Math.pow(10, Math.floor(Math.log10(s0))), r = s0 / mag;
		const step = (r < 1.5 ? 1 : r < 3 ? 2 : r < 7 ? 5 : 10) * mag;
		const out = [];
		for (let v = Math.ceil(a / step) * step; v <= b + step * 1e-9 && out.length < 50; v += step)
			out.push(v);
		return out;
	}

	const tip = el('div');
	tip.id = 'tip';
	document.body.appendChild(tip);
	function showTip(ev, lines) {
		if (!lines) {
			tip.style.display = 'none';
			return;
		}
		tip.textContent = lines.join('\n');
		tip.style.display = 'block';
		const x = Math.min(ev.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
		const y = Math.min(ev.clientY + 14, window.innerHeight - tip.offsetHeight - 8);
		tip.style.left = Math.max(0, x) + 'px';
		tip.style.top = Math.max(0, y) + 'px';
	}

	// A chart: an SVG with a time axis; spec.render(c) draws the plot, spec.hover(c, px,
	// py) returns tooltip lines.  c.x(t) maps time to pixels inside the plot.
	function Chart(parent, id, title, height, spec) {
		const box = el('section', 'chart-box');
		box.appendChild(el('h3', null, title));
		this.legend = el('div', 'legend');
		box.appendChild(this.legend);
		this.svg = sv('svg', { class: 'chart', id: id, height: height });
		box.appendChild(this.svg);
		parent.appendChild(box);
		this.box = box;
		this.h = height;
		this.m = { l: spec.ml || 70, r: 14, t: 8, b: 22 };
		this.spec = spec;
		charts.push(this);
		const self = this, svg = this.svg;
		svg.addEventListener('wheel', function (ev) {
			ev.preventDefault();
			const t = self.tAt(self.px(ev)), f = ev.deltaY < 0 ? 0.7 : 1 / 0.7;
			setView(t - (t - view.a) * f, t + (view.b - t) * f);
		}, { passive: false });
		svg.addEventListener('mousedown', function (ev) {
			const x0 = ev.clientX, a0 = view.a, b0 = view.b, pw = self.pw();
			function move(e) {
				const d = (x0 - e.clientX) / pw * (b0 - a0);
				setView(a0 + d, b0 + d);
			}
			function up() {
				window.removeEventListener('mousemove', move);
				window.removeEventListener('mouseup', up);
			}
			window.addEventListener('mousemove', move);
			window.addEventListener('mouseup', up);
			ev.preventDefault();
		});
		svg.addEventListener('dblclick', function () { setView(full0, full1); });
		svg.addEventListener('mousemove', function (ev) {
			const r = svg.getBoundingClientRect();
			const px = ev.clientX - r.left, py = ev.clientY - r.top;
			if (px < self.m.l || px > self.w - self.m.r) {
				showTip(ev, null);
				return;
			}
			self.cross.setAttribute('x1', px);
			self.cross.setAttribute('x2', px);
			self.cross.setAttribute('visibility', 'visible');
			showTip(ev, self.spec.hover ? self.spec.hover(self, px, py) : null);
		});
		svg.addEventListener('mouseleave', function (ev) {
			self.cross.setAttribute('visibility', 'hidden');
			showTip(ev, null);
		});
	}
	// pointer position in the SVG's pixels (offsetX is relative to the element hit)
	Chart.prototype.px = function (ev) { return ev.clientX - this.svg.getBoundingClientRect().left; };
	Chart.prototype.pw = function () { return this.w - this.m.l - this.m.r; };
	Chart.prototype.ph = function () { return this.h - this.m.t - this.m.b; };
	Chart.prototype.x = function (t) {
		return this.m.l + (t - view.a) / (view.b - view.a) * this.pw();
	};
	Chart.prototype.tAt = function (px) {
		return view.a + (px - this.m.l) / this.pw() * (view.b - view.a);
	};
	Chart.prototype.y = function (v) {
		return this.m.t + this.ph() - (v - this.y0) / (this.y1 - this.y0) * this.ph();
	};
	Chart.prototype.setY = function (lo, hi) {
		if (!(hi > lo)) hi = lo + 1;
		this.y0 = lo;
		this.y1 = hi;
	};
	Chart.prototype.draw = function () {
		const svg = this.svg;
		this.w = Math.max(320, this.box.clientWidth || 960);
		svg.setAttribute('width', this.w);
		svg.setAttribute('viewBox', '0 0 ' + this.w + ' ' + this.h);
		while (svg.firstChild)
			svg.removeChild(svg.firstChild);
		this.setY(0, 1);
		const clipId = svg.id + '-clip';
		const defs = sv('defs');
		const cp = sv('clipPath', { id: clipId });
		cp.appendChild(sv('rect', { x: this.m.l, y: this.m.t, width: this.pw(), height: this.ph() }));
		defs.appendChild(cp);
		svg.appendChild(defs);
		this.plot = sv('g', { 'clip-path': 'url(#' + clipId + ')', class: 'plot' });
		const axes = sv('g', { class: 'axis' });
		this.spec.render(this);     // sets the y range, draws into this.plot
		// x axis
		for (const t of niceTicks(view.a, view.b, Math.max(2, Math.floor(this.pw() / 110)))) {
			const x = this.x(t);
			axes.appendChild(sv('line', { x1: x, x2: x, y1: this.m.t, y2: this.m.t + this.ph() }));
			axes.appendChild(sv('text', { x: x, y: this.h - 6, 'text-anchor': 'middle' }, fTime(t)));
		}
		if (this.yTicks !== false)
			for (const v of niceTicks(this.y0, this.y1, 4)) {
				const y = this.y(v);
				axes.appendChild(sv('line', { x1: this.m.l, x2: this.m.l + this.pw(), y1: y, y2: y }));
				axes.appendChild(sv('text', { x: this.m.l - 6, y: y + 4, 'text-anchor': 'end' },
					(this.yFmt || fNum)(v)));
			}
		svg.appendChild(axes);
		svg.appendChild(this.plot);
		svg.appendChild(sv('rect', { class: 'frame', x: this.m.l, y: this.m.t,
			width: this.pw(), height: this.ph() }));
		this.cross = sv('line', { y1: this.m.t, y2: this.m.t + this.ph(), stroke: '#888',
			'stroke-dasharray': '3,3', visibility: 'hidden' });
		svg.appendChild(this.cross);
	};
	Chart.prototype.setLegend = function (items) {
		while (this.legend.firstChild)
			this.legend.removeChild(this.legend.firstChild);
		for (const it of items) {
			const s = el('span');
			const sw = el('span', 'sw');
			sw.style.background = it.color;
			s.appendChild(sw);
			s.appendChild(document.createTextNode(it.label));
			this.legend.appendChild(s);
		}
	};

	// Line chart over the bins: series = [{label, color, values(bin) -> number|null}]
	function lineChart(parent, id, title, height, series, yFmt, unitLabel) {
		const c = new Chart(parent, id, title, height, {
			render: function (c) {
				const [i0, i1] = visibleBins();
				let hi = 0;
				for (const s of series)
					for (let i = i0; i <= i1; i++) {
						const v = s.values(i);
						if (v !== null && v > hi)
							hi = v;
					}
				c.setY(0, hi * 1.08 || 1);
				for (const s of series) {
					let d = '', pen = false;
					for (let i = Math.max(0, i0 - 1); i <= Math.min(G.nbins - 1, i1 + 1); i++) {
						const v = s.values(i);
						if (v === null) {
							pen = false;
							continue;
						}
						const x = c.x(origin + (i + 0.5) * binNs), y = c.y(v);
						// a segment's first point is drawn as a dot (round cap), so a
						// value between two empty bins shows
						d += (pen ? 'L' : 'M') + x.toFixed(1) + ' ' + y.toFixed(1) +
							(pen ? '' : 'l0.01 0');
						pen = true;
					}
					if (d)
						c.plot.appendChild(sv('path', { d: d, fill: 'none', stroke: s.color,
							'stroke-width': s.width || 1.5, 'stroke-linecap': 'round',
							'stroke-linejoin': 'round', class: 'series' }));
				}
			},
			hover: function (c, px) {
				const i = binOf(c.tAt(px));
				if (i < 0 || i >= G.nbins)
					return null;
				const lines = ['bin ' + fTime(origin + i * binNs) + ' + ' + fTime(binNs)];
				for (const s of series) {
					const v = s.values(i);
					lines.push(s.label + ': ' + (v === null ? '-' : (yFmt || fNum)(v)) +
						(unitLabel ? ' ' + unitLabel : ''));
				}
				return lines;
			},
		});
		c.yFmt = yFmt;
		c.setLegend(series);
		return c;
	}

	// ---- page --------------------------------------------------------------------
	const S = D.summary;
	const names = D.files.map(function (f) { return f.name; });
	document.title = 'RoCE report: ' + names.join(', ');
	const head = el('header');
	head.appendChild(el('h1', null, 'RoCE analysis: ' + names.join(', ')));
	head.appendChild(el('p', 'sub', [D.generator, S.start ? 'capture start ' + S.start : null,
		'duration ' + fTime(S.duration_ns), S.filter ? 'filter: ' + S.filter : null,
		S.complete ? null : 'INCOMPLETE (input error, -c or signal)']
		.filter(function (x) { return x; }).join(' \u00b7 ')));
	app.appendChild(head);

	const bar = el('div', 'toolbar');
	const reset = el('button', null, 'Reset zoom');
	reset.id = 'reset-zoom';
	reset.addEventListener('click', function () { setView(full0, full1); });
	bar.appendChild(reset);
	const zoomLabel = el('span', 'note');
	bar.appendChild(zoomLabel);
	bar.appendChild(el('span', 'note', 'wheel: zoom \u00b7 drag: pan \u00b7 double-click: all'));
	app.appendChild(bar);

	// summary cards (data-key = the summary key, data-value = the exact count)
	app.appendChild(el('h2', null, 'Summary'));
	const cards = el('div', 'grid');
	cards.id = 'summary';
	const cardDefs = [
		['frames', 'Frames'], ['bytes', 'Bytes', fBytes], ['roce_frames', 'RoCE frames'],
		['qps', 'QP streams'], ['icrc_bad', 'Bad ICRC', null, 1], ['malformed', 'Malformed', null, 1],
		['psn_gaps', 'PSN gaps', null, 1], ['lost_psns', 'Lost PSNs', null, 1],
		['unrecovered_psns', 'Unrecovered PSNs', null, 1],
		['acked_unseen_psns', 'ACKed unseen PSNs'], ['duplicates', 'Duplicates'],
		['out_of_order', 'Out of order', null, 1], ['retransmissions', 'Retransmissions', null, 1],
		['naks', 'NAKs (incl. RNR)', null, 1], ['rnr_naks', 'RNR NAKs', null, 1],
		['acks', 'ACKs'], ['cnps', 'CNPs'], ['ecn_ce', 'ECN CE'], ['pfc_frames', 'PFC frames'],
		['pause_frames', 'PAUSE frames'], ['pfc_storms', 'PFC storms', null, 1],
		['evicted_flows', 'Evicted streams', null, 1], ['anomalies', 'Anomalies'],
		['capture_drops', 'Capture drops', null, 1],
	];
	for (const [k, label, fmt, bad] of cardDefs) {
		const c = el('div', 'card' + (bad && S[k] > 0 ? ' bad' : ''));
		c.dataset.key = k;
		c.dataset.value = String(S[k]);
		c.appendChild(el('div', 'k', label));
		c.appendChild(el('div', 'v', fmt ? fmt(S[k]) : fInt(S[k])));
		cards.appendChild(c);
	}
	app.appendChild(cards);

	// input files and their pcapng metadata (text only)
	const files = el('div');
	files.id = 'files';
	for (const f of D.files) {
		const dl = el('dl', 'meta');
		dl.appendChild(el('dt', null, 'file'));
		dl.appendChild(el('dd', 'fname', f.name + ' (' + f.format + ', ' + fInt(f.frames) +
			' frames' + (f.complete ? '' : ', incomplete') + ')'));
		for (const m of f.meta) {
			dl.appendChild(el('dt', null, m.kind + (m.interface !== undefined ?
				' (interface ' + m.interface + ')' : '') + (m.section > 1 ? ' section ' + m.section : '')));
			const dd = el('dd', 'metatext', m.text);
			dd.dataset.kind = m.kind;
			dl.appendChild(dd);
		}
		files.appendChild(dl);
	}
	if (D.meta_dropped)
		files.appendChild(el('p', 'note', D.meta_dropped + ' more metadata strings not shown'));
	app.appendChild(files);

	const SR = D.series;
	const binS = binNs / 1e9;

	// throughput: total and the 8 busiest streams with a series
	app.appendChild(el('h2', null, 'Throughput'));
	const busiest = D.streams.map(function (s, i) { return i; })
		.sort(function (a, b) { return D.streams[b].bytes - D.streams[a].bytes; }).slice(0, 8);
	const tput = [{ label: 'total', color: '#1d2330', width: 2,
		values: function (i) { return SR.bytes[i] * 8 / binS / 1e9; } }];
	busiest.forEach(function (si, k) {
		const s = D.streams[si];
		tput.push({ label: streamLabel(s), color: PALETTE[k % PALETTE.length],
			values: function (i) { return s.bytes_bin[i] * 8 / binS / 1e9; } });
	});
	lineChart(app, 'chart-throughput', 'Throughput, Gbit/s (wire bytes per bin)', 220, tput,
		null, 'Gbit/s');

	app.appendChild(el('h2', null, 'Loss and recovery'));
	lineChart(app, 'chart-events', 'Sequence events per bin', 200, [
		{ label: 'retransmissions after NAK', color: '#d0342c', values: function (i) { return SR.retx_nak[i]; } },
		{ label: 'after RNR NAK', color: '#9b4dca', values: function (i) { return SR.retx_rnr[i]; } },
		{ label: 'after timeout', color: '#e08a00', values: function (i) { return SR.retx_timeout[i]; } },
		{ label: 'PSN gaps', color: '#5c6b7a', values: function (i) { return SR.psn_gaps[i]; } },
		{ label: 'ACKed unseen PSNs', color: '#7a9a3a',
			values: function (i) { return SR.acked_unseen_psns[i]; } },
		{ label: 'NAKs', color: '#1d2330', values: function (i) { return SR.naks[i]; } },
		{ label: 'RNR NAKs', color: '#e05fa0', values: function (i) { return SR.rnr_naks[i]; } },
		{ label: 'out of order', color: '#16a2b8', values: function (i) { return SR.out_of_order[i]; } },
	]);

	app.appendChild(el('h2', null, 'Congestion'));
	lineChart(app, 'chart-cnp', 'CNP rate, per second', 170, [
		{ label: 'CNPs/s', color: '#9b4dca', values: function (i) { return SR.cnps[i] / binS; } },
	], null, '/s');
	lineChart(app, 'chart-ce', 'ECN CE ratio, % of ECN-capable RoCE frames', 170, [
		{ label: 'CE %', color: '#e08a00', values: function (i) {
			return SR.ecn_capable[i] ? 100 * SR.ecn_ce[i] / SR.ecn_capable[i] : null; } },
	], null, '%');

	app.appendChild(el('h2', null, 'Errors'));
	lineChart(app, 'chart-errors', 'Bad ICRC and malformed frames per bin', 170, [
		{ label: 'bad ICRC', color: '#d0342c', values: function (i) { return SR.icrc_bad[i]; } },
		{ label: 'malformed', color: '#1d2330', values: function (i) { return SR.malformed[i]; } },
	]);

	// ---- PSN vs time ---------------------------------------------------------------
	function streamLabel(s) {
		return s.src + ' \u2192 ' + s.dst + ' QP ' + hex6(s.dqpn);
	}
	app.appendChild(el('h2', null, 'PSN vs time per QP'));
	const psnBox = el('div');
	app.appendChild(psnBox);
	const sel = el('select');
	sel.id = 'stream-select';
	const pick = [];
	D.streams.forEach(function (s, i) {
		// a response stream whose request stream has a series is drawn with it
		if (!s.request && s.peer >= 0 && D.streams[s.peer].request)
			return;
		pick.push(i);
		const o = el('option', null, streamLabel(s) + ' \u2014 ' + (s.transport || 'ended') +
			(s.anomalies ? ', ' + s.anomalies + ' events' : '') + ', ' + fBytes(s.bytes));
		o.value = String(i);
		sel.appendChild(o);
	});
	const selRow = el('div');
	selRow.appendChild(el('span', 'note', 'Stream: '));
	selRow.appendChild(sel);
	psnBox.appendChild(selRow);
	if (D.streams_replaced || D.streams_untracked_frames)
		psnBox.appendChild(el('p', 'note', 'Series are kept for ' + D.streams.length +
			' streams (those with sequence anomalies first); ' + fInt(D.streams_untracked_frames) +
			' frames belong to streams without a series.'));
	const KIND = {
		retx: { nak: '#d0342c', rnr: '#9b4dca', timeout: '#e08a00', none: '#5c6b7a' },
		gap: '#d0342c', dup: '#8c96a3', ooo: '#16a2b8', nak: '#1d2330', rnr: '#9b4dca',
		read: '#e08a00',
	};
	let cur = pick.length ? pick[0] : -1;
	let hoverPts = [];
	const psnChart = new Chart(psnBox, 'chart-psn', 'PSN (unwrapped) against time', 380, {
		render: function (c) {
			hoverPts = [];
			if (cur < 0) {
				c.plot.appendChild(sv('text', { x: c.m.l + 10, y: c.m.t + 20 }, 'no RoCE stream'));
				return;
			}
			const s = D.streams[cur], p = s.peer >= 0 ? D.streams[s.peer] : null;
			const [i0, i1] = visibleBins();
			let lo = Infinity, hi = -Infinity;
			function span(st) {
				for (let i = i0; i <= i1; i++) {
					if (st.tx_lo[i] !== null) { lo = Math.min(lo, st.tx_lo[i]); hi = Math.max(hi, st.tx_hi[i]); }
					if (st.ack_hi[i] !== null) { lo = Math.min(lo, st.ack_hi[i]); hi = Math.max(hi, st.ack_hi[i]); }
				}
				for (const q of st.points)
					if (q[0] >= view.a && q[0] <= view.b) { lo = Math.min(lo, q[1]); hi = Math.max(hi, q[1]); }
			}
			span(s);
			if (p)
				span(p);
			if (!isFinite(lo)) { lo = 0; hi = 1; }
			const pad = Math.max(1, (hi - lo) * 0.05);
			c.setY(lo - pad, hi + pad);
			c.yFmt = function (v) { return fNum(v, 0); };
			const bw = Math.max(1, c.x(origin + binNs) - c.x(origin));
			function envelope(st, color, cls) {
				let d = '';
				for (let i = i0; i <= i1; i++) {
					if (st.tx_lo[i] === null)
						continue;
					const x = c.x(origin + i * binNs), y1 = c.y(st.tx_hi[i]), y0 = c.y(st.tx_lo[i]);
					d += 'M' + x.toFixed(1) + ' ' + (y0 + 1).toFixed(1) + 'V' + (y1 - 1).toFixed(1) +
						'H' + (x + bw).toFixed(1) + 'V' + (y0 + 1).toFixed(1) + 'Z';
				}
				if (d)
					c.plot.appendChild(sv('path', { d: d, fill: color, stroke: color,
						'stroke-width': 0.6, class: cls }));
			}
			envelope(s, '#2f6fd6', 'tx');
			if (p) {
				envelope(p, '#f0a53a', 'resp');
				let d = '';
				for (let i = i0; i <= i1; i++)
					if (p.ack_hi[i] !== null) {
						const x = c.x(origin + i * binNs), y = c.y(p.ack_hi[i]);
						d += 'M' + x.toFixed(1) + ' ' + y.toFixed(1) + 'h' + bw.toFixed(1);
					}
				if (d)
					c.plot.appendChild(sv('path', { d: d, stroke: '#2a9d5c', 'stroke-width': 2,
						fill: 'none', class: 'ack' }));
			}
			// CNPs travel on the response stream's key (or are a stream of their own,
			// without a request stream): ticks at the bottom
			function cnpTicks(st) {
				let dc = '';
				for (let i = i0; i <= i1; i++)
					if (st.cnps_bin[i]) {
						const x = c.x(origin + (i + 0.5) * binNs);
						dc += 'M' + x.toFixed(1) + ' ' + (c.m.t + c.ph()) + 'v-10';
						hoverPts.push({ x: x, y: c.m.t + c.ph() - 5, lines: ['CNPs: ' + st.cnps_bin[i],
							'bin ' + fTime(origin + i * binNs) + ' + ' + fTime(binNs)] });
					}
				if (dc)
					c.plot.appendChild(sv('path', { d: dc, stroke: '#e05fa0', 'stroke-width': 2, class: 'cnp' }));
			}
			cnpTicks(s);
			if (p)
				cnpTicks(p);
			function points(st, who) {
				for (const q of st.points) {
					if (q[0] < view.a || q[0] > view.b)
						continue;
					const [t, psn, kind, cause, len, frame, file] = q;
					const x = c.x(t), y = c.y(psn);
					let color = kind === 'retx' ? KIND.retx[cause] || KIND.retx.none : KIND[kind];
					const lines = [kind === 'retx' ? 'retransmission (' + cause + ')' :
						{ gap: 'PSN gap', dup: 'duplicate', ooo: 'out of order', nak: 'NAK',
							rnr: 'RNR NAK', read: 'READ request' }[kind] || kind,
					'time ' + fTime(t), 'PSN ' + psn + ' (' + (psn % 16777216) + ')'];
					if (kind === 'gap') {
						lines.push(len + ' PSN(s) lost');
						c.plot.appendChild(sv('line', { x1: x, x2: x, y1: c.y(psn), y2: c.y(psn + len - 1),
							stroke: color, 'stroke-width': 3, class: 'pt-gap' }));
					}
					if (kind === 'read') {
						const pmtu = st.pmtu || S.pmtu;
						if (pmtu) {
							const n = Math.max(1, Math.ceil(len / pmtu));
							lines.push(len + ' bytes: response PSNs ' + psn + '..' + (psn + n - 1));
							c.plot.appendChild(sv('line', { x1: x, x2: x, y1: y, y2: c.y(psn + n - 1),
								stroke: color, 'stroke-width': 1.5, class: 'pt-readrange' }));
						} else {
							lines.push(len + ' bytes');
						}
					}
					lines.push(who + ' \u00b7 ' + wsFilter(frame) + (D.files.length > 1 ?
						' in ' + D.files[file].name : ''));
					let shape;
					if (kind === 'nak' || kind === 'rnr')
						shape = sv('path', { d: 'M' + x + ' ' + (y - 5) + 'l5 9h-10z', fill: color });
					else if (kind === 'gap')
						shape = sv('path', { d: 'M' + (x - 4) + ' ' + (y - 4) + 'l8 8m0 -8l-8 8',
							stroke: color, 'stroke-width': 2 });
					else
						shape = sv('circle', { cx: x, cy: y, r: kind === 'read' ? 3 : 3.5,
							fill: kind === 'read' ? 'none' : color, stroke: color });
					shape.setAttribute('class', 'pt pt-' + kind +
						(kind === 'retx' ? ' retx-' + (KIND.retx[cause] ? cause : 'none') : ''));
					c.plot.appendChild(shape);
					hoverPts.push({ x: x, y: y, lines: lines });
				}
			}
			points(s, 'this stream');
			if (p)
				points(p, 'response stream');
		},
		hover: function (c, px, py) {
			let best = null, bd = 100;
			for (const h of hoverPts) {
				const d = (h.x - px) * (h.x - px) + (h.y - py) * (h.y - py);
				if (d < bd) { bd = d; best = h; }
			}
			if (best)
				return best.lines;
			if (cur < 0)
				return null;
			const s = D.streams[cur], i = binOf(c.tAt(px));
			if (i < 0 || i >= G.nbins)
				return null;
			const out = ['bin ' + fTime(origin + i * binNs) + ' + ' + fTime(binNs)];
			out.push(s.tx_lo[i] === null ? 'no first transmission' :
				'first transmissions: PSN ' + s.tx_lo[i] + '..' + s.tx_hi[i]);
			if (s.peer >= 0 && D.streams[s.peer].ack_hi[i] !== null)
				out.push('acknowledged up to PSN ' + D.streams[s.peer].ack_hi[i]);
			return out;
		},
	});
	psnChart.setLegend([
		{ label: 'first transmissions', color: '#2f6fd6' },
		{ label: 'READ responses', color: '#f0a53a' }, { label: 'ACKed PSN', color: '#2a9d5c' },
		{ label: 'retx after NAK', color: KIND.retx.nak }, { label: 'retx after RNR', color: KIND.retx.rnr },
		{ label: 'retx after timeout', color: KIND.retx.timeout }, { label: 'gap (x, lost PSNs)', color: KIND.gap },
		{ label: 'NAK \u25b2', color: KIND.nak }, { label: 'RNR NAK \u25b2', color: KIND.rnr },
		{ label: 'duplicate', color: KIND.dup }, { label: 'out of order', color: KIND.ooo },
		{ label: 'READ request + response range', color: KIND.read }, { label: 'CNP', color: '#e05fa0' },
	]);
	sel.addEventListener('change', function () {
		// an empty selector (no RoCE stream, e.g. a PFC-only capture) has the value ''
		cur = sel.value === '' ? -1 : Number(sel.value);
		redrawAll();
	});

	// ---- PFC / PAUSE timeline --------------------------------------------------------
	app.appendChild(el('h2', null, 'PFC / PAUSE'));
	const TL = D.timelines.slice(0, 64);
	function tlLabel(t) { return t.src_mac + (t.priority < 0 ? ' PAUSE' : ' prio ' + t.priority); }
	let tlRects = [];
	// rows carry "interface" only when the frames came from more than one
	const perIf = TL.some(function (t) { return t.interface !== undefined; });
	const pfcChart = new Chart(app, 'chart-pfc', 'Paused intervals per ' +
		(perIf ? 'capture interface, ' : '') + 'source MAC and priority (storms in red)',
		Math.max(80, 30 + 22 * TL.length), {
		ml: 190,
		render: function (c) {
			c.yTicks = false;
			tlRects = [];
			if (!TL.length) {
				c.plot.appendChild(sv('text', { x: c.m.l + 10, y: c.m.t + 20 }, 'no PFC or PAUSE frames'));
				return;
			}
			const rowH = c.ph() / TL.length;
			TL.forEach(function (t, r) {
				const y = c.m.t + r * rowH;
				c.svg.appendChild(sv('text', { x: c.m.l - 6, y: y + rowH / 2 + 4, 'text-anchor': 'end',
					class: 'tl-label', 'font-size': 11 }, tlLabel(t)));
				for (const p of t.pauses) {
					if (p[1] < view.a || p[0] > view.b)
						continue;
					const x0 = c.x(p[0]), x1 = Math.max(x0 + 1, c.x(p[1]));
					const rect = sv('rect', { x: x0, y: y + 3, width: x1 - x0, height: rowH - 6,
						fill: p[2] ? '#d0342c' : '#e0a030', 'fill-opacity': p[3] ? 0.55 : 0.9,
						class: p[2] ? 'pause storm' : 'pause' });
					c.plot.appendChild(rect);
					tlRects.push({ x0: x0, x1: x1, y0: y, y1: y + rowH, t: t, p: p });
				}
			});
		},
		hover: function (c, px, py) {
			for (const r of tlRects)
				if (px >= r.x0 - 1 && px <= r.x1 + 1 && py >= r.y0 && py <= r.y1) {
					const p = r.p;
					return [tlLabel(r.t) + (p[2] ? ' \u2014 STORM' : ''),
						'paused ' + fTime(p[0]) + ' \u2013 ' + fTime(p[1]) + ' (' + fTime(p[1] - p[0]) + ')',
						p[3] ? 'several pauses merged (long capture): see the table for exact totals' :
							'started by ' + wsFilter(p[4])];
				}
			return null;
		},
	});
	if (D.timelines.length > TL.length)
		app.appendChild(el('p', 'note', (D.timelines.length - TL.length) + ' more timelines in the table below'));

	// paused ratio per priority (over the capture's duration)
	const byPrio = new Map();
	for (const r of D.pfc) {
		const e = byPrio.get(r.priority) || { n: 0, paused: 0, ratio: 0, max: 0, storms: 0 };
		e.n++;
		e.paused += r.paused_ns;
		e.ratio += r.paused_ratio;      // (inside the capture: a pause past its end stops there)
		e.max = Math.max(e.max, r.paused_ratio);
		e.storms += r.storms;
		byPrio.set(r.priority, e);
	}
	const prioRows = Array.from(byPrio.keys()).sort(function (a, b) { return a - b; }).map(function (p) {
		const e = byPrio.get(p);
		return [p < 0 ? 'PAUSE' : String(p), e.n, e.paused, e.ratio / e.n, e.max, e.storms];
	});
	app.appendChild(el('h3', null, 'Paused ratio per priority'));
	makeTable(app, 'pfc-prio', [
		{ label: 'priority', t: 1 }, { label: 'sources' }, { label: 'paused (sum)', fmt: fTime },
		{ label: 'mean paused ratio', fmt: pct, bar: 1 }, { label: 'max paused ratio', fmt: pct, bar: 1 },
		{ label: 'storms' }], prioRows);
	function pct(v) { return (100 * v).toFixed(2) + ' %'; }

	app.appendChild(el('h3', null, 'PFC / PAUSE table'));
	makeTable(app, 'pfc', [
		{ label: 'source MAC', t: 1 }, { label: 'priority', t: 1 }, { label: 'frames' },
		{ label: 'XOFF' }, { label: 'XON' }, { label: 'paused', fmt: fTime },
		{ label: 'paused ratio', fmt: pct, bar: 1 }, { label: 'longest', fmt: fTime },
		{ label: 'storms' }, { label: 'first frame' }],
	D.pfc.map(function (r) {
		return [r.src_mac, r.priority < 0 ? 'PAUSE' : String(r.priority), r.frames, r.xoff, r.xon,
			r.paused_ns, r.paused_ratio, r.longest_pause_ns, r.storms, r.first_frame];
	}), function (row) { return row[8] > 0; });

	// ---- per-QP table --------------------------------------------------------------
	app.appendChild(el('h2', null, 'Queue pairs'));
	if (D.qps_total > D.qps.length)
		app.appendChild(el('p', 'note', 'The ' + D.qps.length + ' of ' + fInt(D.qps_total) +
			' streams with the most anomalies, then the most bytes.'));
	const QC = D.qp_columns;
	const qpCols = QC.map(function (k) {
		const c = { label: k.replace(/_/g, ' '), key: k };
		if (k === 'src' || k === 'dst' || k === 'transport')
			c.t = 1;
		if (k === 'dqpn')
			c.fmt = hex6;
		if (k === 'bytes')
			c.fmt = fBytes;
		if (k === 'rtt_p50_us' || k === 'rtt_p99_us')
			c.fmt = function (v) { return v === null ? '-' : v.toFixed(3); };
		return c;
	});
	const troubleIdx = ['psn_gaps', 'retransmissions', 'naks', 'unrecovered_psns']
		.map(function (k) { return QC.indexOf(k); });
	makeTable(app, 'qps', qpCols, D.qps, function (row) {
		return troubleIdx.some(function (i) { return row[i] > 0; });
	});

	// ---- anomalies -------------------------------------------------------------------
	app.appendChild(el('h2', null, 'Anomalies'));
	const counts = el('p', 'note', Object.keys(D.anomaly_counts).filter(function (k) {
		return D.anomaly_counts[k] > 0; }).map(function (k) {
		return k + ' ' + fInt(D.anomaly_counts[k]); }).join(' \u00b7 ') || 'none');
	counts.id = 'anomaly-counts';
	app.appendChild(counts);
	if (S.anomalies > D.anomalies_listed)
		app.appendChild(el('p', 'note', 'The first ' + fInt(D.anomalies_listed) + ' of ' +
			fInt(S.anomalies) + ' anomalies (roce-analyze --max-anomalies).'));
	const multi = D.files.length > 1;
	const anCols = [{ label: 'frame' }];
	if (multi)
		anCols.push({ label: 'file', t: 1 });
	anCols.push({ label: 'time', fmt: fTime }, { label: 'type', t: 1 }, { label: 'where', t: 1 },
		{ label: 'PSN' }, { label: 'detail', t: 1, wrap: 1 }, { label: 'Wireshark filter', t: 1, code: 1 });
	makeTable(app, 'anomalies', anCols, D.anomalies.slice(0, 20000).map(function (a) {
		const r = [a.frame];
		if (multi)
			r.push(a.file || '');
		r.push(a.t_ns, a.type, a.where, a.psn, a.detail, wsFilter(a.frame));
		return r;
	}));

	// ---- sortable tables ---------------------------------------------------------------
	// cols: {label, t (text, left), fmt, bar, wrap, code}; rows: arrays of raw values
	// (numbers sort as numbers); hot(row): highlight.  Cells carry data-v = the raw value.
	function makeTable(parent, id, cols, rows, hot) {
		const wrap = el('div', 'tablewrap');
		const table = el('table');
		table.id = id;
		const thead = el('thead'), tr = el('tr');
		const tbody = el('tbody');
		let sortCol = -1, asc = true;
		cols.forEach(function (c, i) {
			const th = el('th', c.t ? 't' : null, c.label);
			th.addEventListener('click', function () {
				asc = sortCol === i ? !asc : !!c.t;
				sortCol = i;
				for (const h of tr.children)
					h.classList.remove('sorted-asc', 'sorted-desc');
				th.classList.add(asc ? 'sorted-asc' : 'sorted-desc');
				rows.sort(function (x, y) {
					const a = x[i], b = y[i];
					if (a === b) return 0;
					if (a === null || a === undefined) return 1;
					if (b === null || b === undefined) return -1;
					const r = typeof a === 'number' && typeof b === 'number' ? a - b :
						String(a).localeCompare(String(b), 'en', { numeric: true });
					return asc ? r : -r;
				});
				fill();
			});
			tr.appendChild(th);
		});
		thead.appendChild(tr);
		table.appendChild(thead);
		table.appendChild(tbody);
		function fill() {
			while (tbody.firstChild)
				tbody.removeChild(tbody.firstChild);
			const frag = document.createDocumentFragment();
			for (const row of rows) {
				const r = el('tr', hot && hot(row) ? 'hot' : null);
				cols.forEach(function (c, i) {
					const v = row[i];
					const td = el('td', c.wrap ? 'wrap' : c.t ? 't' : null);
					td.dataset.v = v === null || v === undefined ? '' : String(v);
					const text = v === null || v === undefined ? '-' : c.fmt ? c.fmt(v) :
						typeof v === 'number' ? fInt(v) : String(v);
					if (c.code)
						td.appendChild(el('code', null, text));
					else
						td.textContent = text;
					if (c.bar && typeof v === 'number') {
						const b = el('span', 'bar');
						b.style.width = Math.round(Math.min(1, Math.max(0, v)) * 80) + 'px';
						td.insertBefore(document.createTextNode(' '), td.firstChild);
						td.insertBefore(b, td.firstChild);
					}
					r.appendChild(td);
				});
				frag.appendChild(r);
			}
			tbody.appendChild(frag);
		}
		fill();
		if (!rows.length) {
			const r = el('tr'), td = el('td', 't', 'none');
			td.colSpan = cols.length;
			r.appendChild(td);
			tbody.appendChild(r);
		}
		wrap.appendChild(table);
		parent.appendChild(wrap);
		return table;
	}

	window.addEventListener('resize', redrawAll);
	for (const c of charts)
		c.draw();
	zoomLabel.textContent = 'Showing everything (bin ' + fTime(binNs) + ')';
	document.body.dataset.ready = '1';
	if (window.performance && performance.mark)
		performance.mark('roce-ready');     /* bench/html_bench.sh: time to drawn */
})();

// gb's live page: reads the run's samples from /events (one a second)
// and draws them; at the end it turns to the final report.
'use strict';

const palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
let run = 0;       // the run shown (--repeat's runs start over)
let samples = [];  // its samples, oldest first
const otherColors = {}; // outcome name -> colour, in the order first seen

const $ = id => document.getElementById(id);

function fmt(v, digits) {
	if (v === undefined || v === null || !isFinite(v)) return '–';
	if (Math.abs(v) >= 1e6) return (v / 1e6).toFixed(2) + 'M';
	if (Math.abs(v) >= 1e4) return (v / 1e3).toFixed(1) + 'k';
	return v.toFixed(digits);
}

function ms(v) { return v === undefined ? '–' : fmt(v, v < 10 ? 3 : 1) + ' ms'; }

function clock(t) {
	const s = Math.floor(t), h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60;
	return (h ? h + 'h' : '') + (h || m ? m + 'm' : '') + (s % 60) + 's';
}

function failedSum(s) {
	let n = 0;
	for (const k in (s.other || {})) if (k.startsWith('failed.')) n += s.other[k];
	return n;
}

// rates returns the per-second rate of an outcome counter got(s) between
// consecutive samples.
function rates(got) {
	const pts = [];
	for (let i = 1; i < samples.length; i++) {
		const a = samples[i - 1], b = samples[i], dt = b.t - a.t;
		if (dt > 0) pts.push([b.t, (got(b) - got(a)) / dt]);
	}
	return pts;
}

function series(name, color, pts, dash) { return {name, color, pts, dash}; }

// draw plots the series on canvas (x: seconds since the start, y from 0),
// and writes their legend.
function draw(id, list, unit) {
	const canvas = $(id), legend = $(id + '-legend');
	list = list.filter(s => s.pts.length > 0);
	legend.replaceChildren(...list.map(s => {
		const span = document.createElement('span');
		const sw = document.createElement('i');
		sw.style.background = s.color;
		span.append(sw, s.name);
		return span;
	}));
	const dpr = window.devicePixelRatio || 1;
	const w = canvas.clientWidth, h = canvas.clientHeight;
	canvas.width = Math.round(w * dpr);
	canvas.height = Math.round(h * dpr);
	const g = canvas.getContext('2d');
	g.setTransform(dpr, 0, 0, dpr, 0, 0);
	g.clearRect(0, 0, w, h);
	const left = 56, right = 10, top = 8, bottom = 22;
	let t0 = Infinity, t1 = -Infinity, ymax = 0;
	for (const s of list) for (const [t, v] of s.pts) {
		t0 = Math.min(t0, t); t1 = Math.max(t1, t); ymax = Math.max(ymax, v);
	}
	if (!isFinite(t0)) {
		g.fillStyle = '#888';
		g.font = '12px system-ui, sans-serif';
		g.fillText('no data yet', left, top + 20);
		return;
	}
	if (t1 <= t0) t1 = t0 + 1;
	ymax = ymax > 0 ? niceCeil(ymax * 1.05) : 1;
	const x = t => left + (t - t0) / (t1 - t0) * (w - left - right);
	const y = v => top + (1 - v / ymax) * (h - top - bottom);
	g.font = '11px system-ui, sans-serif';
	g.strokeStyle = '#e6e6e6';
	g.fillStyle = '#555';
	g.lineWidth = 1;
	const ydigits = Math.max(0, Math.min(4, 1 - Math.floor(Math.log10(ymax / 4))));
	for (let i = 0; i <= 4; i++) {
		const v = ymax * i / 4, yy = Math.round(y(v)) + 0.5;
		g.beginPath(); g.moveTo(left, yy); g.lineTo(w - right, yy); g.stroke();
		g.textAlign = 'right';
		g.fillText(fmt(v, ydigits) + unit, left - 4, yy + 4);
	}
	g.textAlign = 'center';
	for (let i = 0; i <= 4; i++) {
		const t = t0 + (t1 - t0) * i / 4;
		g.fillText(t1 - t0 < 8 ? t.toFixed(1) + 's' : clock(t), x(t), h - 6);
	}
	for (const s of list) {
		g.strokeStyle = s.color;
		g.lineWidth = 2;
		g.setLineDash(s.dash ? [6, 4] : []);
		g.beginPath();
		s.pts.forEach(([t, v], i) => (i ? g.lineTo(x(t), y(v)) : g.moveTo(x(t), y(v))));
		if (s.pts.length === 1) g.arc(x(s.pts[0][0]), y(s.pts[0][1]), 2, 0, 2 * Math.PI);
		g.stroke();
	}
	g.setLineDash([]);
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
function niceCeil(v) {
	const p = Math.pow(10, Math.floor(Math.log10(v)));
	for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
	return 10 * p;
}

function render() {
	const last = samples[samples.length - 1];
	if (!last) return;
	$('c-elapsed').textContent = clock(last.t);
	let done = last.ok + last.non2xx;
	for (const k in (last.other || {})) done += last.other[k];
	$('c-done').textContent = fmt(done, 0);
	$('c-rate').textContent = fmt(last.rate, 1);
	$('c-target').textContent = last.target ? fmt(last.target, 1) : 'none';
	const lat = [...samples].reverse().find(s => s.latency);
	$('c-p50').textContent = lat ? ms(lat.latency.p50) : '–';
	$('c-p99').textContent = lat ? ms(lat.latency.p99) : '–';
	$('c-ok').textContent = fmt(last.ok, 0);
	$('c-non2xx').textContent = fmt(last.non2xx, 0);
	$('c-failed').textContent = fmt(failedSum(last), 0);
	$('c-conns').textContent = fmt(last.conns, 0);
	$('c-server').textContent = last.serverCPU === undefined ? 'no profile' : fmt(last.serverCPU, 2);

	const pick = f => samples.filter(s => f(s) !== undefined).map(s => [s.t, f(s)]);
	draw('rate', [series('achieved', palette[0], pick(s => s.rate)),
		series('target', palette[7], pick(s => s.target), true)], '');
	const l = k => pick(s => s.latency && s.latency[k]);
	draw('latency', [series('p50', palette[0], l('p50')), series('p90', palette[2], l('p90')),
		series('p99', palette[3], l('p99')), series('max', palette[1], l('max'))], '');
	const out = [series('2xx', palette[2], rates(s => s.ok)), series('non-2xx', palette[3], rates(s => s.non2xx))];
	for (const s of samples) for (const k in (s.other || {})) {
		if (!(k in otherColors)) otherColors[k] = palette[(4 + Object.keys(otherColors).length) % palette.length];
	}
	for (const k in otherColors) out.push(series(k, otherColors[k], rates(s => (s.other || {})[k] || 0)));
	draw('outcomes', out, '');
	draw('conns', [series('open', palette[0], pick(s => s.conns))], '');
	draw('cpu', [series('gb', palette[0], pick(s => s.gbCPU)),
		series('server', palette[1], pick(s => s.serverCPU))], '');
	document.body.dataset.samples = String(samples.length);
}

function add(s) {
	if (s.run !== run) {
		run = s.run;
		samples = [];
	}
	samples.push(s);
	const st = $('state');
	st.textContent = 'Running' + (run > 1 ? ' (run ' + run + ')' : '') + ': ' + clock(s.t) + ' elapsed';
	render();
}

const es = new EventSource('/events');
es.addEventListener('sample', e => add(JSON.parse(e.data)));
es.addEventListener('end', e => {
	es.close();
	const end = JSON.parse(e.data);
	if (end.final && end.final.t > 0) add(end.final);
	const st = $('state');
	st.className = 'ended';
	document.body.dataset.ended = 'true';
	if (end.report) {
		st.textContent = 'The run ended: opening its report…';
		location.replace(end.report);
	} else {
		st.textContent = 'The run ended without a report.';
	}
});
es.onerror = () => {
	if (es.readyState === EventSource.CLOSED) {
		const st = $('state');
		st.className = 'lost';
		st.textContent = 'Lost the connection to gb.';
	}
};
window.addEventListener('resize', render);

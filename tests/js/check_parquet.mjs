// check_parquet.mjs - checks ipitrace's Parquet files with DuckDB (an
// independent reader) against the CSV that ipitrace writes for the same trace.
//
//   node check_parquet.mjs SPEC
//
// SPEC has one check a line, fields separated by tabs: NAME KIND ARGS...
//   NAME explode   PARQUET CSV TSTYPE      types, row count, every row, stats
//   NAME noexplode PARQUET CSV CSV_EXPLODED TSTYPE
//                                           same with the targets list; its
//                                           elements unnested = exploded rows
//   NAME meta      PARQUET CODEC MIN_ROW_GROUPS
//   NAME dataset   DIR KEYS CSV=VALUES...   hive-partitioned directory: every
//                                           partition holds exactly its traces'
//                                           rows (VALUES: host|date, host, ...)
//   NAME arrowrs   PARQUET CSV EXPLODE      a second reader, the Rust parquet
//                                           crate (npm parquet-wasm): types and
//                                           every value against the CSV
// Prints "PASS NAME", "FAIL NAME: why" or "SKIP NAME: why" for each line.
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';

const INTS = ['id', 'src_cpu', 'target_cpu', 'ntargets', 'pid'];
const REQ = ['comm', 'event', 'kind', 'callsite', 'callback', 'func'];
const OPT = ['callsite_sym', 'callback_sym', 'func_sym', 'reason'];
// the matching columns: nullable BIGINT, handler_ts_ns of ts_ns's type, BOOLEAN,
// VARCHAR, and stack a VARCHAR[] (the CSV: empty for null, true/false, the
// frames joined by ';')
const BIGS = ['lat_ns', 'handler_ns'];
const TSS = ['handler_ts_ns'];
const BOOLS = ['matched', 'coalesced'];
const MSTR = ['unmatched_reason', 'callsite_func', 'func_name'];
const ORDER = ['ts_ns', 'id', 'src_cpu', 'target_cpu', 'ntargets', 'pid', 'comm', 'event', 'kind',
	'callsite', 'callsite_sym', 'callback', 'callback_sym', 'func', 'func_sym', 'reason']
	.concat(BIGS, TSS, BOOLS, MSTR, ['stack']);

const inst = await DuckDBInstance.create(':memory:');
const db = await inst.connect();

async function q(sql) {
	const r = await db.runAndReadAll(sql);
	return r.getRowObjectsJson();
}
const lit = (s) => `'${String(s).replace(/'/g, "''")}'`;
const csv = (f) => `read_csv(${lit(f)}, header=true, all_varchar=true, delim=',', quote='"', escape='"')`;
const csvs = (fs_) => `read_csv([${fs_.map(lit).join(',')}], header=true, all_varchar=true, delim=',', quote='"', escape='"')`;
const pq = (f) => `read_parquet(${lit(f)})`;

// "0-3,8" -> [0,1,2,3,8]
await q(`CREATE MACRO cpulist(s) AS flatten(list_transform(
	list_filter(string_split(coalesce(s, ''), ','), x -> x <> ''),
	x -> CASE WHEN contains(x, '-')
		THEN range(split_part(x, '-', 1)::INTEGER, split_part(x, '-', 2)::INTEGER + 1)::INTEGER[]
		ELSE [x::INTEGER] END))`);

function expectedTypes(explode, tstype) {
	return ORDER.map((c) => {
		if (c === 'ts_ns' || TSS.includes(c)) return [c, tstype];
		if (c === 'id') return [c, 'BIGINT'];
		if (c === 'target_cpu') return explode ? [c, 'INTEGER'] : ['targets', 'INTEGER[]'];
		if (INTS.includes(c)) return [c, 'INTEGER'];
		if (BIGS.includes(c)) return [c, 'BIGINT'];
		if (BOOLS.includes(c)) return [c, 'BOOLEAN'];
		if (c === 'stack') return [c, 'VARCHAR[]'];
		return [c, 'VARCHAR'];
	});
}

async function checkTypes(rel, explode, tstype, extra = []) {
	const got = (await q(`DESCRIBE SELECT * FROM ${rel}`)).map((r) => [r.column_name, r.column_type]);
	const want = expectedTypes(explode, tstype).concat(extra);
	const g = JSON.stringify(got), w = JSON.stringify(want);
	if (g !== w) throw new Error(`column types ${g}, expected ${w}`);
}

// the conditions under which row p differs from CSV row c
function diffConds(explode, tstype) {
	const conds = [];
	conds.push(tstype === 'TIMESTAMP_NS' ? 'epoch_ns(p.ts_ns)::VARCHAR IS DISTINCT FROM c.ts_ns'
		: 'p.ts_ns::VARCHAR IS DISTINCT FROM c.ts_ns');
	for (const x of INTS) {
		if (x === 'target_cpu' && !explode)
			conds.push('p.targets IS DISTINCT FROM cpulist(c.targets)');
		else
			conds.push(`p.${x}::VARCHAR IS DISTINCT FROM c.${x}`);
	}
	for (const x of REQ) conds.push(`coalesce(p.${x}, '') <> coalesce(c.${x}, '')`);
	for (const x of OPT) conds.push(`p.${x} IS DISTINCT FROM c.${x}`);
	for (const x of BIGS.concat(BOOLS)) conds.push(`p.${x}::VARCHAR IS DISTINCT FROM c.${x}`);
	for (const x of TSS)
		conds.push(tstype === 'TIMESTAMP_NS' ? `epoch_ns(p.${x})::VARCHAR IS DISTINCT FROM c.${x}`
			: `p.${x}::VARCHAR IS DISTINCT FROM c.${x}`);
	for (const x of MSTR) conds.push(`p.${x} IS DISTINCT FROM c.${x}`);
	conds.push(`(CASE WHEN len(p.stack) = 0 THEN NULL ELSE p.stack END) IS DISTINCT FROM string_split(c.stack, ';')`);
	return conds.join(' OR ');
}

// a normalised, all-text view of rows, for multiset comparisons
function normParquet(tstype) {
	return [tstype === 'TIMESTAMP_NS' ? 'epoch_ns(ts_ns)::VARCHAR AS ts_ns' : 'ts_ns::VARCHAR AS ts_ns']
		.concat(INTS.map((x) => `${x}::VARCHAR AS ${x}`))
		.concat(REQ.map((x) => `coalesce(${x}, '') AS ${x}`))
		.concat(OPT).join(', ');
}
function normCsv() {
	return ['ts_ns'].concat(INTS).concat(REQ.map((x) => `coalesce(${x}, '') AS ${x}`))
		.concat(OPT).join(', ');
}

async function count(rel) {
	return Number((await q(`SELECT count(*) AS n FROM ${rel}`))[0].n);
}

async function compareRows(P, C, explode, tstype) {
	const np = await count(pq(P)), nc = await count(csv(C));
	if (np !== nc) throw new Error(`${np} rows, the CSV has ${nc}`);
	const bad = await q(`SELECT p.*, c.* FROM (SELECT * FROM ${pq(P)}) p POSITIONAL JOIN
		(SELECT * FROM ${csv(C)}) c WHERE ${diffConds(explode, tstype)} LIMIT 1`);
	if (bad.length) throw new Error(`row differs from the CSV: ${JSON.stringify(bad[0])}`);
	const nbad = await count(`(SELECT 1 FROM (SELECT * FROM ${pq(P)}) p POSITIONAL JOIN
		(SELECT * FROM ${csv(C)}) c WHERE ${diffConds(explode, tstype)})`);
	if (nbad) throw new Error(`${nbad} rows differ`);
	return np;
}

// column chunk statistics: null counts and min/max agree with the data
async function checkStats(P, explode) {
	const rows = await q(`SELECT path_in_schema AS col, stats_null_count AS nulls,
		stats_min_value AS mn, stats_max_value AS mx FROM parquet_metadata(${lit(P)})`);
	const meta = new Map();
	for (const r of rows) {
		if (r.nulls === null) throw new Error(`column ${r.col}: a chunk without null_count`);
		const num = INTS.includes(r.col) || BIGS.includes(r.col);
		const lt = (x, y) => (num ? BigInt(x) < BigInt(y) : Buffer.compare(Buffer.from(x), Buffer.from(y)) < 0);
		const m = meta.get(r.col) || { col: r.col, nulls: 0, mn: null, mx: null };
		m.nulls += Number(r.nulls);
		if (r.mn !== null && (m.mn === null || lt(r.mn, m.mn))) m.mn = r.mn;
		if (r.mx !== null && (m.mx === null || lt(m.mx, r.mx))) m.mx = r.mx;
		meta.set(r.col, m);
	}
	for (const m of meta.values()) {
		const name = m.col.startsWith('targets') || m.col.startsWith('stack') ? null : m.col;
		if (!name) continue;
		const a = (await q(`SELECT count(*) FILTER (WHERE ${name} IS NULL) AS nulls,
			min(${name})::VARCHAR AS mn, max(${name})::VARCHAR AS mx FROM ${pq(P)}`))[0];
		if (Number(a.nulls) !== m.nulls)
			throw new Error(`column ${name}: null_count ${m.nulls}, the data has ${a.nulls}`);
		const num = INTS.includes(name) || BIGS.includes(name);
		const eq = (x, y) => (x === null && y === null) || (x !== null && y !== null &&
			(num ? BigInt(x) === BigInt(y) : x === y));
		if (!eq(m.mn, a.mn) || !eq(m.mx, a.mx))
			throw new Error(`column ${name}: stats min/max ${m.mn}/${m.mx}, data ${a.mn}/${a.mx}`);
	}
	if (!explode && ![...meta.keys()].some((c) => c.startsWith('targets')))
		throw new Error('no targets column chunk');
}

async function explodeCheck(P, C, tstype) {
	await checkTypes(pq(P), true, tstype);
	const n = await compareRows(P, C, true, tstype);
	await checkStats(P, true);
	return `${n} rows`;
}

async function noExplodeCheck(P, C, CX, tstype) {
	await checkTypes(pq(P), false, tstype);
	const n = await compareRows(P, C, false, tstype);
	await checkStats(P, false);
	const un = `(SELECT id, unnest(targets) AS t FROM ${pq(P)})`;
	const ex = `(SELECT id::BIGINT AS id, target_cpu::INTEGER AS t FROM ${csv(CX)})`;
	const d1 = await count(`(${un} EXCEPT ALL ${ex})`), d2 = await count(`(${ex} EXCEPT ALL ${un})`);
	if (d1 || d2) throw new Error(`unnested targets differ from the exploded CSV (${d1}/${d2} rows)`);
	return `${n} events`;
}

async function metaCheck(P, codec, minRg) {
	const cc = await q(`SELECT DISTINCT compression FROM parquet_metadata(${lit(P)})`);
	const got = cc.map((r) => r.compression).join(',');
	if (got !== codec && !(cc.length === 0 && codec))
		throw new Error(`compression ${got}, expected ${codec}`);
	const fm = (await q(`SELECT created_by, num_rows, num_row_groups FROM parquet_file_metadata(${lit(P)})`))[0];
	if (!/^ipitrace version \S+$/.test(fm.created_by))
		throw new Error(`created_by '${fm.created_by}'`);
	if (Number(fm.num_row_groups) < Number(minRg))
		throw new Error(`${fm.num_row_groups} row groups, expected at least ${minRg}`);
	const kv = await q(`SELECT decode(key) AS k FROM parquet_kv_metadata(${lit(P)})`);
	if (!kv.some((r) => r.k === 'ipitrace.ts_ns'))
		throw new Error('no ipitrace.ts_ns key/value metadata');
	const dict = await q(`SELECT path_in_schema AS c, encodings AS e, dictionary_page_offset AS d
		FROM parquet_metadata(${lit(P)}) WHERE type = 'BYTE_ARRAY'`);
	for (const r of dict)
		if (!String(r.e).includes('PLAIN_DICTIONARY') || r.d === null)
			throw new Error(`string column ${r.c} is not dictionary encoded (${r.e})`);
	const pages = await q(`SELECT sum(num_values) AS v, min(row_group_num_rows) AS r FROM parquet_metadata(${lit(P)}) WHERE path_in_schema = 'id'`);
	if (Number(fm.num_rows) && pages[0].v !== null && Number(pages[0].v) !== Number(fm.num_rows))
		throw new Error(`id column has ${pages[0].v} values for ${fm.num_rows} rows`);
	return `${fm.num_row_groups} row groups, ${fm.num_rows} rows, ${got || 'no chunks'}`;
}

async function datasetCheck(dir, keys, items) {
	const glob = `${dir}/**/*.parquet`;
	const rel = `read_parquet(${lit(glob)}, hive_partitioning=true)`;
	const k = keys.split(',');
	const extra = k.map((x) => [x, x === 'date' ? 'DATE' : 'VARCHAR']).sort();  // DuckDB orders them by name
	await checkTypes(rel, true, 'TIMESTAMP_NS', extra);
	const groups = new Map();
	for (const it of items) {
		const [f, v] = it.split('=');
		if (!groups.has(v)) groups.set(v, []);
		groups.get(v).push(f);
	}
	let total = 0;
	for (const [v, files] of groups) {
		const vals = v.split('|');
		const where = k.map((x, i) => `${x}::VARCHAR = ${lit(vals[i])}`).join(' AND ');
		const P = `(SELECT ${normParquet('TIMESTAMP_NS')} FROM ${rel} WHERE ${where})`;
		const C = `(SELECT ${normCsv()} FROM ${csvs(files)})`;
		const np = await count(P), nc = await count(C);
		if (np !== nc) throw new Error(`partition ${v}: ${np} rows, its traces' CSVs have ${nc}`);
		const d1 = await count(`(${P} EXCEPT ALL ${C})`), d2 = await count(`(${C} EXCEPT ALL ${P})`);
		if (d1 || d2) throw new Error(`partition ${v}: rows differ from the CSVs (${d1}/${d2})`);
		total += np;
	}
	const all = await count(rel);
	if (all !== total) throw new Error(`${all} rows in the dataset, ${total} in the expected partitions`);
	return `${total} rows in ${groups.size} partitions`;
}

// ---- the Rust parquet crate (arrow-rs) through parquet-wasm ----
let arrowrs = null, arrowrsWhy = '';
try {
	const pw = await import('parquet-wasm/node');
	const arrow = await import('apache-arrow');
	arrowrs = (file) => arrow.tableFromIPC(pw.readParquet(new Uint8Array(fs.readFileSync(file))).intoIPCStream());
} catch (e) {
	arrowrsWhy = `parquet-wasm / apache-arrow not loadable: ${e.message}`;
}

async function arrowrsCheck(P, C, explode) {
	const t = arrowrs(P);
	const want = expectedTypes(explode, 'TIMESTAMP_NS').map(([n, ty]) => [n, {
		TIMESTAMP_NS: 'Timestamp<NANOSECOND>', BIGINT: 'Int64', INTEGER: 'Int32', VARCHAR: 'Utf8',
		'INTEGER[]': 'List<Int32>', BOOLEAN: 'Bool', 'VARCHAR[]': 'List<Utf8>' }[ty]]);
	const got = t.schema.fields.map((f) => [f.name, String(f.type)]);
	if (JSON.stringify(got) !== JSON.stringify(want))
		throw new Error(`arrow types ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
	const sel = explode ? '*' : '* REPLACE (cpulist(targets)::VARCHAR AS targets)';
	const rows = await q(`SELECT ${sel} FROM ${csv(C)}`);
	if (rows.length !== t.numRows) throw new Error(`${t.numRows} rows, the CSV has ${rows.length}`);
	const cols = t.schema.fields.map((f) => [f.name, t.getChild(f.name)]);
	// raw nanoseconds of ts_ns and handler_ts_ns (get() would give lossy
	// milliseconds); null where get() says so
	const raw = {};
	for (const c of ['ts_ns'].concat(TSS)) {
		raw[c] = [];
		for (const d of t.getChild(c).data)
			for (let i = 0; i < d.length; i++) raw[c].push(d.values[d.offset + i]);
	}
	for (let i = 0; i < rows.length; i++) {
		for (const [name, v] of cols) {
			let a;
			if (name in raw) a = v.get(i) === null ? null : String(raw[name][i]);
			else if (name === 'targets') a = `[${Array.from(v.get(i)).join(', ')}]`;
			else if (name === 'stack') {
				const x = v.get(i);
				a = x === null || x.length === 0 ? null : Array.from(x).join(';');
			} else {
				const x = v.get(i);
				a = x === null ? null : String(x);
			}
			let b = rows[i][name];
			if (REQ.includes(name)) { a = a ?? ''; b = b ?? ''; }
			if (a !== b) throw new Error(`row ${i} column ${name}: '${a}', the CSV has '${b}'`);
		}
	}
	return `${rows.length} rows`;
}

const spec = fs.readFileSync(process.argv[2], 'utf8').split('\n').filter((l) => l.trim());
for (const line of spec) {
	const [name, kind, ...a] = line.split('\t');
	try {
		let info;
		if (kind === 'explode') info = await explodeCheck(a[0], a[1], a[2]);
		else if (kind === 'noexplode') info = await noExplodeCheck(a[0], a[1], a[2], a[3]);
		else if (kind === 'meta') info = await metaCheck(a[0], a[1], a[2]);
		else if (kind === 'dataset') info = await datasetCheck(a[0], a[1], a.slice(2));
		else if (kind === 'arrowrs') {
			if (!arrowrs) {
				console.log(`SKIP ${name}: ${arrowrsWhy}`);
				continue;
			}
			info = await arrowrsCheck(a[0], a[1], a[2] === 'explode');
		}
		else throw new Error(`unknown check kind ${kind}`);
		console.log(`PASS ${name} (${info})`);
	} catch (e) {
		console.log(`FAIL ${name}: ${String(e.message || e).replace(/\s+/g, ' ').slice(0, 600)}`);
	}
}

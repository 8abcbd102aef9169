function wrapAsyncCb(callee, split) {
    return async (callbackIndex, callbackData) => {
        let success;
        try {
            await packFor(split);
            await callee();
            success = true;
        } catch (e) {
            console.error(e);
            success = false;
        } finally {
            const sharedImports = getSharedImports();
            sharedImports.__wasm_split.__indirect_function_table.get(callbackIndex)(callbackData, success);
        }
    }
}
function makeLoad(fetcher, deps) {
    const loader = async () => {
        const parallelStuff = deps.map(d => d());
        const instantiate = fetcher();
        await Promise.all(parallelStuff);
        const imports = getSharedImports();
        return instantiate(imports);
    };
    let loadingModule = undefined;
    return () => {
        if (loadingModule === undefined) {
            const thisLoad = loader();
            // Memoize successes only: a rejected load must not be cached for
            // the lifetime of the session, or one transient network failure
            // permanently breaks the module. Clearing on rejection lets the
            // next call (e.g. the Rust side re-invoking load after a failed
            // callback) start a fresh attempt.
            thisLoad.catch(() => {
                if (loadingModule === thisLoad) loadingModule = undefined;
            });
            loadingModule = thisLoad;
        }
        return loadingModule;
    }
}
// A page may name one file holding the chunks it needs first (a pack: for each chunk, its name's
// length and name, then its length and bytes, lengths as 32-bit little-endian): one request and
// one compressed stream instead of one per chunk. `<link id="wasm-split-pack" href="…">` names it;
// a chunk it holds is taken from it. A page reached later by a link takes its own pack, named in
// `pages.json` beside this file, when most of its chunks are new to the page (a few more chunks
// come one by one; the page shown first is not looked up). Any other chunk, or all if a pack
// cannot be read, is fetched on its own.
const packs = [];
let linked = undefined, pages = undefined;
// Chunks asked for (some may still be on their way), and chunks already handed to the loader.
const requested = new Set(), taken = new Set();
function unpack(buffer) {
    const view = new DataView(buffer), chunks = new Map(), names = new TextDecoder();
    let at = 0;
    while (at + 4 <= buffer.byteLength) {
        const nameLength = view.getUint32(at, true);
        const name = names.decode(new Uint8Array(buffer, at + 4, nameLength));
        at += 4 + nameLength;
        const length = view.getUint32(at, true);
        // A chunk already taken is not instantiated again: only what is new is kept.
        if (!taken.has(name)) chunks.set(name, new Uint8Array(buffer, at + 4, length));
        at += 4 + length;
    }
    return chunks;
}
function addPack(href) {
    const pack = fetch(href)
        .then(r => r.ok ? r.arrayBuffer() : null)
        .then(b => b === null ? null : unpack(b))
        .catch(() => null);
    packs.push(pack);
    return pack;
}
function linkedPack() {
    if (linked === undefined) {
        const link = typeof document === "undefined" ? null : document.getElementById("wasm-split-pack");
        linked = link === null ? Promise.resolve(null) : addPack(link.href);
    }
    return linked;
}
let loads = 0;
async function packFor(split) {
    // The first page's code is what the page preloads (its link, or its one module): no lookup.
    const initial = loads++ === 0;
    const first = await linkedPack();
    if (initial || (first !== null && [...first.keys()].some(name => name.startsWith(`split_${split}.`)))) return;
    if (pages === undefined) {
        pages = fetch(new URL("./pages.json", import.meta.url))
            .then(r => r.ok ? r.json() : null)
            .catch(() => null);
    }
    const all = await pages;
    const page = all?.pages?.[split];
    if (!page) return;
    // Code a page shows inside another (`after`: for each such page, the pack of what it adds
    // to it), brought to that page already here: only what it adds, in one file.
    for (const [shown, added] of Object.entries(page.after ?? {})) {
        const base = all.pages[shown];
        if (base && base.chunks.every(chunk => requested.has(`${chunk}.wasm`))) {
            if (added) addPack(new URL(`./${added}.bin`, import.meta.url));
            return;
        }
    }
    if (!page.pack) return;
    const fresh = page.chunks.filter(chunk => !requested.has(`${chunk}.wasm`)).length;
    if (fresh * 2 > page.chunks.length) addPack(new URL(`./${page.pack}.bin`, import.meta.url));
}
function fetchChunk(url) {
    const name = url.pathname.slice(url.pathname.lastIndexOf("/") + 1);
    requested.add(name);
    linkedPack();
    return Promise.all(packs).then(all => {
        taken.add(name);
        for (const chunks of all) {
            const bytes = chunks === null ? undefined : chunks.get(name);
            if (bytes === undefined) continue;
            // Each chunk is instantiated once; a pack's memory goes once its chunks are taken.
            chunks.delete(name);
            return new Response(bytes, { headers: { "Content-Type": "application/wasm" } });
        }
        return fetch(url);
    });
}

function wrapAsyncCb(callee) {
    return async (callbackIndex, callbackData) => {
        let success;
        try {
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
// a chunk it holds is taken from it, any other (or all, if the pack cannot be read) is fetched.
let pack = undefined;
function unpack(buffer) {
    const view = new DataView(buffer), chunks = new Map(), names = new TextDecoder();
    let at = 0;
    while (at + 4 <= buffer.byteLength) {
        const nameLength = view.getUint32(at, true);
        const name = names.decode(new Uint8Array(buffer, at + 4, nameLength));
        at += 4 + nameLength;
        const length = view.getUint32(at, true);
        chunks.set(name, new Uint8Array(buffer, at + 4, length));
        at += 4 + length;
    }
    return chunks;
}
function fetchChunk(url) {
    if (pack === undefined) {
        const link = typeof document === "undefined" ? null : document.getElementById("wasm-split-pack");
        pack = link === null ? Promise.resolve(null) : fetch(link.href)
            .then(r => r.ok ? r.arrayBuffer() : null)
            .then(b => b === null ? null : unpack(b))
            .catch(() => null);
    }
    const name = url.pathname.slice(url.pathname.lastIndexOf("/") + 1);
    return pack.then(chunks => {
        const bytes = chunks === null ? undefined : chunks.get(name);
        // Each chunk is instantiated once; the pack's memory goes once every chunk is taken.
        if (bytes !== undefined) chunks.delete(name);
        return bytes === undefined ? fetch(url)
            : new Response(bytes, { headers: { "Content-Type": "application/wasm" } });
    });
}

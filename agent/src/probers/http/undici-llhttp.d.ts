// undici ships llhttp's WebAssembly build as a module exporting its bytes (no typings of its own).
declare module 'undici/lib/llhttp/llhttp_simd-wasm.js' {
  const wasm: Buffer;
  export default wasm;
}

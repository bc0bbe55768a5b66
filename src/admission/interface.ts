// The admission contract is the registry's (src/registry/admission.ts): the
// generic store calls the chain, so the types live beside it and admission
// plugins import them, keeping the layers' imports one-way (DESIGN.md).
export * from '../registry/admission.js';

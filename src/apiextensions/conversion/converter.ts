// Custom resource conversion between a CRD's versions (upstream's
// apiextensions-apiserver pkg/apiserver/conversion): one converter per CRD,
// chosen by spec.conversion.strategy.
//
// - None: only apiVersion changes (synchronous; the stores keep using
//   registry/ConvertingObjectStore for it).
// - Webhook: objects not yet at the desired version go to the CRD's
//   conversion webhook in a ConversionReview (./webhook.ts); the calls are
//   asynchronous, so the stores use ./store.ts.
//
// A converter converts one object; the input is never changed. An object
// already at the desired apiVersion is handed back as it is (no call).

import type { KubeObject } from '../../machinery/meta.js';
import type { CustomResourceDefinition } from '../types.js';
import { type ConversionWebhookCaller, webhookConverter } from './webhook.js';

export interface CustomResourceConverter {
  /** 'None' converts synchronously (convertSync); 'Webhook' only through convert. */
  readonly strategy: 'None' | 'Webhook';
  convert(obj: KubeObject, apiVersion: string): Promise<KubeObject>;
}

export interface NoneConverter extends CustomResourceConverter {
  readonly strategy: 'None';
  convertSync(obj: KubeObject, apiVersion: string): KubeObject;
}

export const noneConverter: NoneConverter = {
  strategy: 'None',
  convertSync: (obj, apiVersion) => (obj.apiVersion === apiVersion ? obj : { ...obj, apiVersion }),
  convert: (obj, apiVersion) => Promise.resolve(noneConverter.convertSync(obj, apiVersion)),
};

export interface ConverterOptions {
  /** Sends a ConversionReview to the CRD's webhook; without it a Webhook CRD's conversions fail. */
  callWebhook?: ConversionWebhookCaller | undefined;
  uid?: () => string;
}

/** The converter a CRD's spec.conversion asks for (None when absent). */
export function converterFor(crd: CustomResourceDefinition, options: ConverterOptions): CustomResourceConverter {
  if (crd.spec.conversion?.strategy !== 'Webhook') return noneConverter;
  return webhookConverter(crd, options);
}

export type { ConversionWebhookCaller } from './webhook.js';

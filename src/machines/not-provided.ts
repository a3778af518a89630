import { fromCallback, fromPromise, type EventObject } from 'xstate';

/**
 * The placeholder of an effect a machine invokes, typed with its input and output: the machines
 * name their effects, the host provides them (host/wire.ts). Left unprovided, it fails loudly.
 */
export const notProvided = <Output, Input>(name: string) =>
  fromPromise<Output, Input>(async () => {
    throw missing(name);
  });

/** The placeholder of a callback actor (one that reports events while it runs): fails loudly when started unprovided. */
export const notProvidedCallback = <Input>(name: string) =>
  fromCallback<EventObject, Input>(() => {
    throw missing(name);
  });

const missing = (name: string) => new Error(`The "${name}" actor was not provided: wire it with machine.provide().`);

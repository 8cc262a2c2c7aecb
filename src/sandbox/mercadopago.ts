import type { EmulatorPlugin } from './types';

// Placeholder until the mercadopago emulator lands (issue #3).
export const mercadopagoEmulator: EmulatorPlugin = async () => {};

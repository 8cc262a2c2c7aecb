import type { EmulatorPlugin } from './types';

// Placeholder until the asaas emulator lands (issue #3).
export const asaasEmulator: EmulatorPlugin = async () => {};

/** Every test file, in every tier: the config and cache folders its dpgw runs used are removed after it (run-dpgw.ts). */
import { afterAll } from 'vitest';
import { removeMadeFolders } from './run-dpgw.js';

afterAll(removeMadeFolders);

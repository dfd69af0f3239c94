/** `dpgw config [show|set|unset|use|profiles|path]`: the group and its subcommands (their types: config.flags.ts); the handlers are config.handler.ts. */
import { defineCommand, defineGroup } from '../../command-kit/command-definition.js';
import { askedHelp } from '../shared/asked-help.js';

export const show = defineCommand({
  usage: 'show',
  description: 'show the effective settings and where each came from (secrets masked)',
  example: 'dpgw config show --profile dev',
  handler: () => import('./config.handler.js').then((module) => module.show),
});

export const config = defineGroup({
  name: 'config',
  description: 'show and edit settings and profiles',
  runWithout: show,
  commands: [
    show,
    defineCommand({
      usage: 'set <key> <value>',
      description: 'set a key in a profile (the current one unless --profile)',
      example: 'dpgw config set gateway https://gateway.example --profile dev',
      argumentValues: ['profile key'],
      handler: () => import('./config.handler.js').then((module) => module.set),
    }),
    defineCommand({
      usage: 'unset <key>',
      description: 'remove a key from a profile',
      example: 'dpgw config unset platformVersion',
      argumentValues: ['profile key'],
      handler: () => import('./config.handler.js').then((module) => module.unset),
    }),
    defineCommand({
      usage: 'use [profile]',
      description: 'make a profile the current one',
      example: 'dpgw config use dev',
      moreHelp: askedHelp("<profile> (config.yaml's profiles)"),
      argumentValues: ['profile'],
      handler: () => import('./config.handler.js').then((module) => module.use),
    }),
    defineCommand({
      usage: 'profiles',
      description: 'list the profiles',
      example: 'dpgw config profiles',
      handler: () => import('./config.handler.js').then((module) => module.profiles),
    }),
    defineCommand({
      usage: 'path',
      description: 'print the config file path',
      example: 'dpgw config path',
      handler: () => import('./config.handler.js').then((module) => module.path),
    }),
  ],
});

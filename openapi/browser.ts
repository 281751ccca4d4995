/**
 * shoptwin/openapi in the browser: the same module, with ajv bundled and handed to the validators
 * (in Node they load it on first use through require, which a browser has not). Bundlers pick this
 * entry through the `browser` condition of package.json's exports.
 */
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { provideAjv, type AjvModules } from './index.ts'

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
provideAjv({ Ajv2020, addFormats: ((addFormatsModule as unknown as { default?: AjvModules['addFormats'] }).default ?? addFormatsModule) as AjvModules['addFormats'] })

export * from './index.ts'

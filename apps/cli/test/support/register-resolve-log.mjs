// `node --import` this file to log what a process resolves (see resolve-log.mjs).
import { register } from "node:module";

register("./resolve-log.mjs", import.meta.url);

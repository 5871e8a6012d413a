import type { PublicPackage } from "../test/project.js";

/** The repository root. */
export const root: string;
/** Every workspace package that is not private. */
export function publicPackages(): PublicPackage[];
/** The file name `npm pack` gives a package's tarball. */
export function tarballName(name: string, version: string): string;

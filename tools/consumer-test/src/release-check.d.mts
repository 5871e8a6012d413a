import type { PublicPackage } from "../test/project.js";

/** One package's dry-run pack, as `npm pack --dry-run --json` reports it. */
export interface DryRunPack {
  name: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: { path: string }[];
}

/** Dry-run packs of the given packages in one npm call. */
export function dryRunPacks(pkgs: PublicPackage[]): Map<string, DryRunPack>;
/** The example files of a package. */
export function examplesOf(name: string): string[];
/** Every problem with one package (empty when it is ready to publish). */
export function packageIssues(pkg: PublicPackage, packed: DryRunPack, all: PublicPackage[]): string[];
/** Packs every public package (dry run) and checks each. */
export function releaseCheck(): {
  rows: { name: string; size: number; unpackedSize: number; files: number }[];
  issues: string[];
};

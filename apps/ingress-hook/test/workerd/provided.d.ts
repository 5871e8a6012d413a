export {};

declare module "vitest" {
  export interface ProvidedContext {
    podPort: number;
  }
}

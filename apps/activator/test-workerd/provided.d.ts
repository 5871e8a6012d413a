export {};

declare module "vitest" {
  export interface ProvidedContext {
    originPort: number;
    barePort: number;
  }
}

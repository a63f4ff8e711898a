// What a step run through scripts/runner.mjs said in its annotations, and the job environment of a hosted runner.
interface Annotated {
  annotations: { level: string; message: string }[]
}

export function warnings(step: Annotated): string[] {
  return step.annotations.filter(a => a.level === 'warning').map(a => a.message)
}

/** A job's environment on a GitHub-hosted runner: run 77, its second attempt. */
export const HOSTED = {
  GITHUB_RUN_ID: '77',
  GITHUB_RUN_ATTEMPT: '2',
  GITHUB_JOB: 'agents',
  RUNNER_NAME: 'GitHub Actions 3',
  RUNNER_ENVIRONMENT: 'github-hosted',
  GITHUB_REPOSITORY: 'octo/sample'
}

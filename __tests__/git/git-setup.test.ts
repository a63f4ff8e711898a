// Covers: src/git/git-setup.ts (pinRecorded's listing of the config).
// The post and the exit take only the settings whose hashes enter recorded: they list the config only where enter
// recorded a setting, not where every recorded hash is one of the workflow's variables.
import { afterEach, expect, it, vi } from 'vitest'
import { pinAtEnter, pinRecorded, setupFromConfig, type SetupEntry } from '../../src/git/git-setup.js'

const saved = { ...process.env }
afterEach(() => {
  process.env = { ...saved }
})

it('lists the config only where enter recorded a setting', async () => {
  process.env.GIT_SSH_COMMAND = 'ssh -o BatchMode=yes'
  const variablesOnly = setupFromConfig(pinAtEnter(), [])
  expect(variablesOnly.hashes).toHaveLength(1)
  const header: SetupEntry = { scope: 'local', key: 'http.https://github.com/.extraheader', value: 'AUTHORIZATION: basic x' }
  const withSetting = setupFromConfig(pinAtEnter(), [header])
  expect(withSetting.hashes).toHaveLength(2)

  const none = vi.fn(() => Promise.resolve([header]))
  await pinRecorded(variablesOnly, process.cwd(), none)
  expect(none).not.toHaveBeenCalled()
  const listed = vi.fn(() => Promise.resolve([header]))
  await pinRecorded(withSetting, process.cwd(), listed)
  expect(listed).toHaveBeenCalledOnce()
  // A variable that changed since enter is not the one recorded: its hash could be a setting's, and the config is read.
  process.env.GIT_SSH_COMMAND = 'ssh -o BatchMode=no'
  const changed = vi.fn(() => Promise.resolve([]))
  await pinRecorded(variablesOnly, process.cwd(), changed)
  expect(changed).toHaveBeenCalledOnce()
})

import type { Plugin, PluginConfig } from '@burrow/contracts'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useParams } from '@tanstack/react-router'
import { useState } from 'react'
import { errorWords, trpc } from '../api'
import { DataTable } from '../components/DataTable'
import { Dialog } from '../components/Dialog'
import { PluginConfigForm } from '../components/PluginConfigForm'
import { ErrorNotice, ListStates, Loading, Refusal } from '../components/States'
import { useMe } from '../hooks'

const FROM = '/project/$projectId/plugins'

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' })

/** What a dialog of the page is open for, if any. */
type Open =
  | { kind: 'enable'; plugin: Plugin }
  | { kind: 'configure'; config: PluginConfig; plugin: Plugin | undefined }
  | { kind: 'logs'; config: PluginConfig }
  | { kind: 'job'; config: PluginConfig; plugin: Plugin }
  | { kind: 'remove'; config: PluginConfig }

/**
 * `/project/:id/plugins`: the project's plugins in the order they run on each event, each
 * switched on or off, moved earlier or later, configured from its own schema, its log read and
 * its jobs started; and the organization's catalogue, from which a plugin is enabled.
 */
export function Plugins(): React.JSX.Element {
  const { projectId } = useParams({ from: FROM })
  const organizationId = useMe().data?.organization?.id
  const queryClient = useQueryClient()
  const [open, setOpen] = useState<Open | undefined>()
  const close = () => setOpen(undefined)
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['plugin-configs', projectId] })
  const catalogue = useQuery({
    queryKey: ['plugins', organizationId],
    enabled: organizationId !== undefined,
    queryFn: ({ signal }) => trpc.plugins.list.query({ organization_id: organizationId ?? '', limit: 100 }, { signal }),
  })
  const configs = useQuery({
    queryKey: ['plugin-configs', projectId],
    queryFn: ({ signal }) => trpc.pluginConfigs.list.query({ project_id: projectId, limit: 100 }, { signal }),
  })
  const pluginOf = (config: PluginConfig) => catalogue.data?.results.find((p) => p.id === config.plugin)
  const update = useMutation({
    mutationFn: ({ id, enabled }: { id: number; enabled: boolean }) =>
      trpc.pluginConfigs.update.mutate({ project_id: projectId, id: String(id), data: { enabled } }),
    onSuccess: refresh,
  })
  const rearrange = useMutation({
    mutationFn: (ordered: PluginConfig[]) =>
      trpc.pluginConfigs.rearrange.mutate({
        project_id: projectId,
        data: { orders: Object.fromEntries(ordered.map((config, i) => [String(config.id), i + 1])) },
      }),
    onSuccess: refresh,
  })
  // The enabled plugins run in their order (the only ones the service orders, as PostHog); the
  // switched-off ones follow.
  const sorted = [...(configs.data?.results ?? [])].sort((a, b) => a.order - b.order || a.id - b.id)
  const running = sorted.filter((config) => config.enabled)
  const ordered = [...running, ...sorted.filter((config) => !config.enabled)]
  const move = (index: number, by: -1 | 1) => {
    const next = [...running]
    const [config] = next.splice(index, 1)
    next.splice(index + by, 0, config!)
    rearrange.mutate(next)
  }
  const failed = update.error ?? rearrange.error
  return (
    <>
      <h1>Plugins</h1>
      <p className="muted">
        Plugins change or send on each event this project receives, before it is stored; the enabled ones run in the order listed here.
      </p>
      <section aria-labelledby="enabled-plugins">
        <h2 id="enabled-plugins">This project&apos;s plugins</h2>
        <ListStates
          query={configs}
          what="the project's plugins"
          rowsOf={(data) => data.results}
          empty={<p>No plugin is set up in this project yet. Enable one from the catalogue below.</p>}
        >
          {() => (
            <DataTable
              label="This project's plugins"
              rows={ordered}
              rowKey={(config) => config.id}
              columns={[
                { header: 'Order', cell: (config) => (config.enabled ? running.indexOf(config) + 1 : <span className="muted">off</span>) },
                { header: 'Plugin', cell: (config) => config.name },
                {
                  header: 'Enabled',
                  cell: (config) => (
                    <label className="row">
                      <input
                        type="checkbox"
                        role="switch"
                        checked={config.enabled}
                        disabled={update.isPending}
                        onChange={(e) => update.mutate({ id: config.id, enabled: e.target.checked })}
                      />
                      <span className="visually-hidden">{config.name} enabled</span>
                    </label>
                  ),
                },
                {
                  header: 'Move',
                  cell: (config) => {
                    const i = running.indexOf(config)
                    if (i < 0) return <span className="muted">—</span>
                    return (
                      <span className="row">
                        <button
                          type="button"
                          disabled={i === 0 || rearrange.isPending}
                          aria-label={`Move ${config.name} earlier`}
                          onClick={() => move(i, -1)}
                        >
                          ↑
                        </button>
                        <button
                          type="button"
                          disabled={i === running.length - 1 || rearrange.isPending}
                          aria-label={`Move ${config.name} later`}
                          onClick={() => move(i, 1)}
                        >
                          ↓
                        </button>
                      </span>
                    )
                  },
                },
                {
                  header: <span className="visually-hidden">Actions</span>,
                  cell: (config) => {
                    const plugin = pluginOf(config)
                    return (
                      <span className="row">
                        <button
                          type="button"
                          aria-label={`Configure ${config.name}`}
                          onClick={() => setOpen({ kind: 'configure', config, plugin })}
                        >
                          Configure
                        </button>
                        <button type="button" aria-label={`Logs of ${config.name}`} onClick={() => setOpen({ kind: 'logs', config })}>
                          Logs
                        </button>
                        {plugin && Object.keys(plugin.public_jobs).length > 0 && (
                          <button
                            type="button"
                            aria-label={`Run a job of ${config.name}`}
                            onClick={() => setOpen({ kind: 'job', config, plugin })}
                          >
                            Run job
                          </button>
                        )}
                        <button type="button" aria-label={`Remove ${config.name}`} onClick={() => setOpen({ kind: 'remove', config })}>
                          Remove
                        </button>
                      </span>
                    )
                  },
                },
              ]}
            />
          )}
        </ListStates>
        {failed && (
          <p className="error" role="alert">
            {errorWords(failed)}
          </p>
        )}
      </section>
      <section aria-labelledby="plugin-catalogue">
        <h2 id="plugin-catalogue">Catalogue</h2>
        {organizationId === undefined ? (
          <Loading what="the catalogue" />
        ) : (
          <ListStates query={catalogue} what="the catalogue" rowsOf={(data) => data.results} empty={<p>This service offers no plugins.</p>}>
            {(data) => (
              <DataTable
                label="Plugin catalogue"
                rows={data.results}
                rowKey={(plugin) => plugin.id}
                columns={[
                  { header: 'Plugin', cell: (plugin) => plugin.name },
                  { header: 'Description', cell: (plugin) => plugin.description },
                  {
                    header: <span className="visually-hidden">Actions</span>,
                    cell: (plugin) =>
                      ordered.some((config) => config.plugin === plugin.id) ? (
                        <span className="muted">Set up</span>
                      ) : (
                        <button type="button" aria-label={`Enable ${plugin.name}`} onClick={() => setOpen({ kind: 'enable', plugin })}>
                          Enable
                        </button>
                      ),
                  },
                ]}
              />
            )}
          </ListStates>
        )}
      </section>
      <Dialog open={open !== undefined} title={titleOf(open)} onClose={close}>
        {open?.kind === 'enable' && (
          <PluginConfigForm
            pluginName={open.plugin.name}
            schema={open.plugin.config_schema}
            stored={{}}
            submitLabel="Enable"
            save={(config) =>
              trpc.pluginConfigs.create.mutate({
                project_id: projectId,
                plugin: open.plugin.id,
                enabled: true,
                order: running.length + 1,
                config,
              })
            }
            onSaved={() => {
              close()
              refresh()
            }}
          />
        )}
        {open?.kind === 'configure' &&
          (open.plugin ? (
            <PluginConfigForm
              pluginName={open.config.name}
              schema={open.plugin.config_schema}
              stored={open.config.config}
              submitLabel="Save"
              save={(config) => trpc.pluginConfigs.update.mutate({ project_id: projectId, id: String(open.config.id), data: { config } })}
              onSaved={() => {
                close()
                refresh()
              }}
            />
          ) : catalogue.isError ? (
            <ErrorNotice error={catalogue.error} retry={() => void catalogue.refetch()} />
          ) : (
            <Loading what="the plugin's settings" />
          ))}
        {open?.kind === 'logs' && <PluginLogs projectId={projectId} config={open.config} />}
        {open?.kind === 'job' && <RunJob projectId={projectId} config={open.config} plugin={open.plugin} />}
        {open?.kind === 'remove' && (
          <RemovePlugin
            projectId={projectId}
            config={open.config}
            onRemoved={() => {
              close()
              refresh()
            }}
          />
        )}
      </Dialog>
    </>
  )
}

function titleOf(open: Open | undefined): string {
  switch (open?.kind) {
    case 'enable':
      return `Enable ${open.plugin.name}`
    case 'configure':
      return `Configure ${open.config.name}`
    case 'logs':
      return `Logs of ${open.config.name}`
    case 'job':
      return `Run a job of ${open.config.name}`
    case 'remove':
      return `Remove ${open.config.name}?`
    default:
      return 'Plugin'
  }
}

/** A plugin config's log, newest first, as the service keeps it. */
function PluginLogs({ projectId, config }: { projectId: string; config: PluginConfig }) {
  const logs = useQuery({
    queryKey: ['plugin-logs', projectId, config.id],
    queryFn: ({ signal }) =>
      trpc.pluginConfigs.logs.query({ project_id: projectId, parent_lookup_plugin_config_id: String(config.id), limit: 100 }, { signal }),
  })
  return (
    <div className="stack">
      <div className="row">
        <button type="button" onClick={() => void logs.refetch()} disabled={logs.isFetching}>
          Refresh
        </button>
      </div>
      <ListStates query={logs} what="the log" rowsOf={(data) => data.results} empty={<p>Nothing logged yet.</p>}>
        {(data) => (
          <DataTable
            label={`Log of ${config.name}`}
            rows={data.results}
            rowKey={(entry) => entry.id}
            columns={[
              { header: 'Time', cell: (entry) => timeFormat.format(new Date(entry.timestamp)) },
              { header: 'Type', cell: (entry) => entry.type },
              { header: 'Source', cell: (entry) => entry.source },
              { header: 'Message', cell: (entry) => entry.message },
            ]}
          />
        )}
      </ListStates>
    </div>
  )
}

/** One of the jobs a plugin declares, started with the payload fields it takes. */
function RunJob({ projectId, config, plugin }: { projectId: string; config: PluginConfig; plugin: Plugin }) {
  const types = Object.keys(plugin.public_jobs)
  const [type, setType] = useState(types[0] ?? '')
  const [payload, setPayload] = useState<Record<string, string>>({})
  const fields = Object.entries(plugin.public_jobs[type]?.payload ?? {}) as [string, { type?: string; required?: boolean }][]
  const run = useMutation({
    mutationFn: () =>
      trpc.pluginConfigs.job.mutate({
        project_id: projectId,
        id: String(config.id),
        data: { job: { type, payload: Object.fromEntries(Object.entries(payload).filter(([, v]) => v !== '')) } },
      }),
  })
  return (
    <form
      className="stack"
      aria-label={`Job of ${config.name}`}
      onSubmit={(e) => {
        e.preventDefault()
        run.mutate()
      }}
    >
      <div className="field">
        <label htmlFor="plugin-job-type">Job</label>
        <select
          id="plugin-job-type"
          value={type}
          onChange={(e) => {
            setType(e.target.value)
            setPayload({})
          }}
        >
          {types.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
      </div>
      {fields.map(([key, field]) => (
        <label key={key} className="field">
          <span>
            {key}
            {field.required ? ' (required)' : ''}
          </span>
          <input
            type={field.type === 'date' ? 'date' : 'text'}
            required={field.required === true}
            value={payload[key] ?? ''}
            onChange={(e) => setPayload((p) => ({ ...p, [key]: e.target.value }))}
          />
        </label>
      ))}
      <div className="row">
        <button type="submit" className="primary" disabled={run.isPending}>
          Run job
        </button>
      </div>
      {run.isSuccess && <p role="status">The job is queued; what it does is written to the plugin&apos;s log.</p>}
      {run.isError && <Refusal error={run.error} />}
    </form>
  )
}

/** Removing a plugin from the project, once confirmed: its settings go with it. */
function RemovePlugin({ projectId, config, onRemoved }: { projectId: string; config: PluginConfig; onRemoved: () => void }) {
  const remove = useMutation({
    mutationFn: () => trpc.pluginConfigs.delete.mutate({ project_id: projectId, id: String(config.id) }),
    onSuccess: onRemoved,
  })
  return (
    <div className="stack">
      <p>{config.name} stops running on this project&apos;s events, and its settings are deleted.</p>
      <div className="row">
        <button type="button" className="primary" disabled={remove.isPending} onClick={() => remove.mutate()}>
          Remove
        </button>
      </div>
      {remove.isError && <Refusal error={remove.error} />}
    </div>
  )
}

"""The agent layer: the model client, the loop, prompts, prompt-cache layout, limits, sub-agents.

Import from the module that owns a name (``bot.agent.loop.run_agent``, ``bot.agent.session.AgentSession``,
``bot.agent.client.make_model_client``…): the package itself re-exports nothing, so importing one part
never imports the model SDK or the loop with it.
"""

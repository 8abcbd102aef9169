// Trunk's initializer for the static judge viewer: once the module is instantiated, mount the
// viewer (`frontend::viewer()`); if it cannot start, say so on the page instead of staying blank.
export default function viewerInitializer() {
  return {
    // Trunk sets window.wasmBindings just before it fires TrunkApplicationStarted (also on failure,
    // hence listening only from here).
    onSuccess: () => {
      addEventListener('TrunkApplicationStarted', () => window.wasmBindings.viewer(), { once: true });
    },
    onFailure: (error) => {
      document.body.insertAdjacentText('afterbegin', 'The viewer could not start: ' + error);
    },
  };
}
